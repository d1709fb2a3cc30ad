import BeaconCore

/// The built-in fleet behind `--adapter sim`: 28 devices with stable addresses, mixing KBeacon Pro units
/// with KSensor + System frames, legacy KBeacons, plain iBeacons (one non-connectable), Eddystone
/// UID/URL/TLM beacons, two text-stream devices: a Tertium TxRx reader and an AT-command device on the
/// Nordic UART Service (text-stream devices), and four blukii modules (for `resolve`, `blukiiModules`). `DD:34:02:06:D0:6C` replays the real K6 advert of docs/protocols/kbeacon.md §10.2/§10.3
/// (KSensor `21 01 0F 0E07 192A 224F FFFC FFEC 03EB`, scan response `6D 01 00 00 00 00` + "KBPro_214810").
public enum DemoFleet {
  /// KKM's factory iBeacon UUID ("www.kkmcn.com" in ASCII).
  public static let kkmUUID = ProximityUUID("7777772E-6B6B-6D63-6E2E-636F6D000001")!
  /// Apple's AirLocate sample UUID, used by the plain iBeacons.
  public static let storeUUID = ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
  /// Namespace of the Eddystone-UID beacons (the first 10 bytes of SHA-1("example.com") would do as well;
  /// this one is just fixed bytes).
  public static let namespace: [UInt8] = [0xED, 0xD1, 0xEB, 0xEA, 0xC0, 0x4E, 0x5D, 0xEF, 0xA0, 0x17]

  public static let fleet = SimulatedFleet(
    devices: kbeaconPros + legacyKBeacons + iBeacons + eddystones + textStreamDevices + blukiiModules)

  static func address(_ text: String) -> BluetoothAddress { BluetoothAddress(text)! }

  static let kbeaconPros: [SimulatedDevice] = (1...6).map(kbeaconPro) + [kbeaconProCO2]

  /// KBeacon Pro number `n`: KSensor (battery, temperature, humidity, acceleration) + System frame, and an
  /// iBeacon slot on the even ones.
  static func kbeaconPro(_ n: Int) -> SimulatedDevice {
    let sensor = SensorSection(
      batteryMillivolts: UInt16(3000 + 20 * n), temperature: 20 + Double(n) / 4, humidity: 40 + Double(n),
      acceleration: [0, Int16(-n), 1000])
    let iBeacon: IBeaconSection? = n % 2 == 0 ? IBeaconSection(uuid: kkmUUID, major: 100, minor: UInt16(n)) : nil
    let system = SystemSection(model: 12, batteryPercent: UInt8(100 - n), firmware: "5.\(10 + n)")
    return SimulatedDevice(
      address: address("DD:34:02:06:D1:0\(n)"), kind: .kbeaconPro, name: "KBPro_2148\(10 + n)",
      intervalMs: 300 + 100 * n,
      rssi: RSSIProfile(mean: -50 - 4 * n, spread: 6), iBeacon: iBeacon, sensor: sensor, system: system)
  }

  /// A CO2 sensor sending KSensor as KKM manufacturer data.
  static let kbeaconProCO2 = SimulatedDevice(
    address: address("DD:34:02:06:D1:07"), kind: .kbeaconPro, name: "KBPro_CO2", intervalMs: 1000,
    rssi: RSSIProfile(mean: -70, spread: 4),
    sensor: SensorSection(batteryMillivolts: 2950, temperature: -5.5, co2ppm: 612, carrier: .manufacturer),
    system: SystemSection(model: 15, batteryPercent: 61, firmware: "5.20"))

  static let legacyKBeacons: [SimulatedDevice] = [
    // The real K6 sample (docs/protocols/kbeacon.md §10.3): 3591 mV, 25.16 °C, 34.31 %, acc (−4, −20, 1003).
    SimulatedDevice(
      address: address("DD:34:02:06:D0:6C"), kind: .kbeaconLegacy, name: "KBPro_214810", intervalMs: 500,
      rssi: RSSIProfile(mean: -58, spread: 5),
      sensor: SensorSection(
        batteryMillivolts: 3591, temperature: Double(0x192A) / 256, humidity: Double(0x224F) / 256,
        acceleration: [-4, -20, 1003]),
      kkmScanResponse: RawBytes([0x6D, 0x01, 0x00, 0x00, 0x00, 0x00])),
    SimulatedDevice(
      address: address("BC:57:29:00:12:01"), kind: .kbeaconLegacy, name: "KBeacon_1201", intervalMs: 800,
      rssi: RSSIProfile(mean: -66, spread: 6),
      iBeacon: IBeaconSection(uuid: kkmUUID, major: 1, minor: 1201),
      sensor: SensorSection(batteryMillivolts: 3100, temperature: 18.5)),
    SimulatedDevice(
      address: address("BC:57:29:00:12:02"), kind: .kbeaconLegacy, name: "KBeacon_1202", intervalMs: 1000,
      rssi: RSSIProfile(mean: -74, spread: 6),
      iBeacon: IBeaconSection(uuid: kkmUUID, major: 1, minor: 1202, measuredPower: -62)),
  ]

  static let iBeacons: [SimulatedDevice] = (1...5).map { n in
    SimulatedDevice(
      address: address("AC:23:3F:00:00:0\(n)"), kind: .iBeacon, name: n == 1 ? "Store-Entrance" : nil,
      connectable: n <= 3, intervalMs: 100 * n + 100, rssi: RSSIProfile(mean: -55 - 6 * n, spread: 5),
      iBeacon: IBeaconSection(uuid: storeUUID, major: 7, minor: UInt16(n), measuredPower: -59))
  }

  static let eddystones: [SimulatedDevice] = [
    SimulatedDevice(
      address: address("E1:DD:57:00:00:01"), kind: .eddystone, intervalMs: 400, rssi: RSSIProfile(mean: -60),
      eddystoneUID: EddystoneUIDSection(namespace: namespace, instance: [0, 0, 0, 0, 0, 1], txPowerAt0m: -18)),
    SimulatedDevice(
      address: address("E1:DD:57:00:00:02"), kind: .eddystone, intervalMs: 700, rssi: RSSIProfile(mean: -77),
      eddystoneUID: EddystoneUIDSection(namespace: namespace, instance: [0, 0, 0, 0, 0, 2])),
    SimulatedDevice(
      address: address("E1:DD:57:00:00:03"), kind: .eddystone, intervalMs: 500, rssi: RSSIProfile(mean: -63),
      eddystoneURL: EddystoneURLSection(url: "https://www.example.com/beacons", txPowerAt0m: -20)),
    SimulatedDevice(
      address: address("E1:DD:57:00:00:04"), kind: .eddystone, intervalMs: 600, rssi: RSSIProfile(mean: -69),
      eddystoneURL: EddystoneURLSection(url: "http://goo.gl/S6zT6P", txPowerAt0m: -16)),
    SimulatedDevice(
      address: address("E1:DD:57:00:00:05"), kind: .eddystone, intervalMs: 300, rssi: RSSIProfile(mean: -57),
      eddystoneUID: EddystoneUIDSection(namespace: namespace, instance: [0, 0, 0, 0, 0, 5]),
      eddystoneTLM: EddystoneTLMSection(batteryMillivolts: 2987, temperature: 23.25, uptimeSeconds: 86_400)),
    SimulatedDevice(
      address: address("E1:DD:57:00:00:06"), kind: .eddystone, intervalMs: 900, rssi: RSSIProfile(mean: -81),
      eddystoneURL: EddystoneURLSection(url: "https://beacon.example.org/"),
      eddystoneTLM: EddystoneTLMSection(temperature: -7.5)),
    SimulatedDevice(
      address: address("E1:DD:57:00:00:07"), kind: .eddystone, connectable: true, intervalMs: 1000,
      rssi: RSSIProfile(mean: -88),
      eddystoneTLM: EddystoneTLMSection(batteryMillivolts: 3300, uptimeSeconds: 12)),
  ]

  /// A Tertium TxRx reader whose `INVENTORY` answer (12 tags, ~500 bytes) spans several notifications, and
  /// an AT-command device on the Nordic UART Service (`SimulatedATCommands`).
  static let textStreamDevices: [SimulatedDevice] = [
    SimulatedDevice(
      address: address("C7:08:00:00:00:01"), kind: .tertiumReader, name: "TxRx_Reader_01", intervalMs: 500,
      rssi: RSSIProfile(mean: -59, spread: 5), textStream: TextStreamSection(profile: "tertium-txrx")),
    SimulatedDevice(
      address: address("6E:40:00:00:00:01"), kind: .nordicUART, name: "AT_Sensor_01", intervalMs: 1000,
      rssi: RSSIProfile(mean: -64, spread: 5), textStream: TextStreamSection(txPower: 0)),
  ]

  /// The proximity UUID blukii modules are seen configured with as iBeacons ("blukii.combeacon" in ASCII).
  public static let blukiiUUID = ProximityUUID("626C756B-6969-2E63-6F6D-626561636F6E")!

  /// Four blukii Info beacons, for `resolve` against the Info Manager. blukii publishes no advertising format of its own for them, so they
  /// advertise as far as is public: an iBeacon frame with blukii's "blukii.combeacon" UUID (seen on deployed
  /// units) and a `blukii <number> <hex>` name in the scan response, the name the SDK's discovery takes a
  /// module's ID from. B10001–B10003 are registered in the tests' loopback Info Manager (B10003 deactivated),
  /// B10004 is not; B10003 is too weak (−95 dBm) for the SDK's −85 dBm threshold.
  static let blukiiModules: [SimulatedDevice] = [
    blukii(1, rssi: -58, intervalMs: 500), blukii(2, rssi: -66, intervalMs: 700), blukii(3, rssi: -95, intervalMs: 600),
    blukii(4, rssi: -70, intervalMs: 800),
  ]

  static func blukii(_ n: Int, rssi: Int, intervalMs: Int) -> SimulatedDevice {
    SimulatedDevice(
      address: address("E4:E1:12:B1:00:0\(n)"), kind: .iBeacon, name: "blukii B1000\(n) E4E112B1000\(n)",
      connectable: false, intervalMs: intervalMs, rssi: RSSIProfile(mean: rssi, spread: 4),
      iBeacon: IBeaconSection(uuid: blukiiUUID, major: 1000, minor: UInt16(n), measuredPower: -62))
  }
}
