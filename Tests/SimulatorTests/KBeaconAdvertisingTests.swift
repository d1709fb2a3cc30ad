import BeaconCore
import Foundation
import JSON
import KBeacon
import Testing

@testable import Simulator

/// `SimulatedDevice.advertising(_:)`: a KBeacon configuration → the exact AD bytes the advertiser sends
/// (docs/protocols/beacon-formats.md §1–§2, docs/protocols/kbeacon.md §6.4, §7, §10), decoded back by the real parser.
@Suite(.timeLimit(.minutes(3))) struct KBeaconAdvertisingTests {
  /// One full turn of the advertiser's PDUs (hex) and its scan response (hex).
  static func air(_ device: SimulatedDevice) -> (pdus: [String], response: String?, kind: AdvertisingReport.Kind) {
    var advertiser = SimulatedAdvertiser(device: device)
    let pdus = (0..<device.frameCount).map { _ in Hex.encode(advertiser.nextPDU(elapsed: .zero).data) }
    return (pdus, advertiser.scanResponse.map(Hex.encode), advertiser.pduKind)
  }

  static func hex(_ text: String) -> [UInt8] { Hex.decode(text)! }

  static let sampleFleet: SimulatedFleet = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "Fixtures/sample-fleet.json")
    return try! SimulatedFleet.decode(try! Data(contentsOf: url))
  }()

  @Test func everyFleetKBeaconAdvertisesItsFleetFramesFromItsStartingConfiguration() {
    let kbeacons = (DemoFleet.fleet.devices + Self.sampleFleet.devices).filter(\.kind.isKBeacon)
    #expect(kbeacons.count == 12)
    for entry in kbeacons {
      let configured = entry.advertising(KBeaconSimulation.startingProfile(entry).factoryConfiguration)
      #expect(configured == entry, "\(entry.address)")
      let (before, after) = (Self.air(entry), Self.air(configured))
      #expect(after.pdus == before.pdus && after.response == before.response && after.kind == before.kind)
    }
  }

  @Test func aProConfigurationBecomesTheseExactBytes() throws {
    // A KBeacon Pro entry with only a System frame; the configuration replaces its advertising.
    let entry = SimulatedDevice(
      address: BluetoothAddress("DD:34:02:06:A0:01")!, kind: .kbeaconPro, name: "old", intervalMs: 300,
      system: SystemSection(model: 12, batteryPercent: 90, firmware: "5.22"))
    var config = KBeaconDeviceProfile.pro(name: "lobby-2").factoryConfiguration
    config.common[CommonKey.meaPwr] = -62
    config.common[CommonKey.ver] = "V5.30"
    var iBeacon = SlotConfig(slot: 0, type: .iBeacon)
    iBeacon[SlotKey.uuid] = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    iBeacon[SlotKey.majorID] = 0x1234
    iBeacon[SlotKey.minorID] = 0x0042
    iBeacon[SlotKey.advPrd] = 1000.0
    iBeacon[SlotKey.conn] = false
    var url = SlotConfig(slot: 1, type: .eddystoneURL)
    url[SlotKey.url] = "https://www.example.com/"
    url[SlotKey.txPwr] = -4
    url[SlotKey.advPrd] = 500.0
    url[SlotKey.conn] = true
    var system = SlotConfig(slot: 2, type: .system)
    system[SlotKey.advPrd] = 1000.0
    var triggered = SlotConfig(slot: 3, type: .eddystoneUID)  // only on a trigger: silent
    triggered[SlotKey.trAdv] = true
    config.slots = [url, iBeacon, system, triggered, SlotConfig(slot: 4, type: .aoa)]

    let device = entry.advertising(config)
    // 1 / (1/1000 + 1/500 + 1/1000) = 250 ms; the URL slot is connectable, so the device is.
    #expect(device.intervalMs == 250 && device.connectable && device.name == "lobby-2")
    let (pdus, response, kind) = Self.air(device)
    #expect(kind == .connectable)
    #expect(
      pdus == [
        // 02 01 06 | 1A FF 4C 00 02 15 | UUID E2C56DB5-… | major 0x1234 | minor 0x0042 | C2 = −62 dBm (meaPwr)
        "020106" + "1AFF4C000215" + "E2C56DB5DFFB48D2B060D0F5A71096E0" + "1234" + "0042" + "C2",
        // 02 01 06 | 03 03 AA FE | 0E 16 AA FE 10 | E7 = −62 + 41 − 4 dBm at 0 m | 01 "https://www." |
        // "example" | 00 ".com/"
        "020106" + "0303AAFE" + "0E16AAFE10" + "E7" + "01" + "6578616D706C65" + "00",
        // 02 01 06 | 0E FF 53 0A 22 | model 0C | battery 5A = 90 % | MAC DD:34:02:06:A0:01 | fw 05.1E = 5.30 (ver)
        "020106" + "0EFF530A22" + "0C" + "5A" + "DD340206A001" + "05" + "1E",
      ])
    // 08 09 "lobby-2" | 09 16 80 20 | battery 5A | 00 01 | MAC low bytes 06 A0 01
    #expect(response == "0809" + "6C6F6262792D32" + "09168020" + "5A" + "0001" + "06A001")

    let decoded = pdus.map { DecodedAdvertisement(Self.hex($0)).frames }
    guard case .iBeacon(let b)? = decoded[0].first, case .eddystoneURL(let u)? = decoded[1].first,
      case .kkmSystem(let s)? = decoded[2].first
    else {
      Issue.record("frames: \(decoded)")
      return
    }
    #expect(b.uuid == DemoFleet.storeUUID && b.major == 0x1234 && b.minor == 0x42 && b.measuredPower == -62)
    #expect(u.url == "https://www.example.com/" && u.txPowerAt0m == -25)
    #expect(s.firmwareVersion == "5.30" && s.batteryPercent == 90)
    #expect(DecodedAdvertisement(Self.hex(response ?? "")).localName == "lobby-2")
  }

  @Test func aLegacyConfigurationBecomesTheseExactBytes() throws {
    // The demo fleet's legacy KBeacon 1201: iBeacon + KSensor (3100 mV, 18.5 °C).
    let entry = try #require(DemoFleet.fleet.devices.first { $0.address == BluetoothAddress("BC:57:29:00:12:01")! })
    var config = KBeaconSimulation.startingProfile(entry).factoryConfiguration
    config.common[LegacyKey.type] = 0x1 | 0x4  // KSensor + iBeacon
    config.common[LegacyKey.majorID] = 7
    config.common[LegacyKey.minorID] = 0x0301
    config.common[LegacyKey.meaPwr] = -70
    config.common[LegacyKey.devName] = "door-7"
    config.common[LegacyKey.advPrd] = 400.0
    config.common[LegacyKey.advFlag] = 0x4  // not connectable
    config.common[LegacyKey.sensor] = 0x2  // humidity group only

    let device = entry.advertising(config)
    #expect(device.intervalMs == 400 && !device.connectable)
    let (pdus, response, kind) = Self.air(device)
    #expect(kind == .scannable)
    #expect(
      pdus == [
        // 02 01 04 (not connectable) | iBeacon KKM UUID | major 0007 | minor 0301 | BA = −70 dBm
        "020104" + "1AFF4C000215" + "7777772E6B6B6D636E2E636F6D000001" + "0007" + "0301" + "BA",
        // 02 01 04 | 03 03 AA FE | 0A 16 AA FE | 21 | version 01 | mask 03 (battery, temp) | 0C1C = 3100 mV |
        // 1280 = 18.5 °C
        "020104" + "0303AAFE" + "0A16AAFE" + "21" + "01" + "03" + "0C1C" + "1280",
      ])
    // 07 09 "door-7" | 09 16 80 20 | battery 64 = 100 % | 04 (iBeacon) | major 0007 | minor 0301
    #expect(response == "0709" + "646F6F722D37" + "09168020" + "64" + "04" + "0007" + "0301")
    guard case .kkmScanResponse(let kkm)? = DecodedAdvertisement(Self.hex(response ?? "")).frames.first,
      case .kSensor(let sensor)? = DecodedAdvertisement(Self.hex(pdus[1])).frames.first
    else {
      Issue.record("no 0x2080 / KSensor")
      return
    }
    #expect(kkm.iBeaconMajor == 7 && kkm.iBeaconMinor == 0x0301)
    #expect(sensor.batteryMillivolts == 3100 && sensor.temperature == 18.5 && sensor.humidity == nil)
  }

  @Test func sensorFlagsPickTheFleetReadingsAndDuplicatesKeepTheLowestSlot() {
    let entry = DemoFleet.kbeaconPro(2)  // KSensor 3040 mV, 20.5 °C, 42 %, acc (0, −2, 1000)
    var config = KBeaconSimulation.startingProfile(entry).factoryConfiguration
    var sensor = SlotConfig(slot: 0, type: .kSensor)
    sensor[SlotKey.ht] = false
    var first = SlotConfig(slot: 1, type: .iBeacon)
    first[SlotKey.majorID] = 1
    var second = SlotConfig(slot: 2, type: .iBeacon)
    second[SlotKey.majorID] = 2
    config.slots = [sensor, second, first, SlotConfig.disabled(3), SlotConfig.disabled(4)]
    let device = entry.advertising(config)
    #expect(device.sensor == SensorSection(batteryMillivolts: 3040, acceleration: [0, -2, 1000]))
    #expect(device.iBeacon?.major == 1 && device.iBeacon?.minor == 2)  // minor: the fleet's, slot 1 has none
    #expect(device.system == nil && device.eddystoneURL == nil)
  }

  @Test func everySlotOffLeavesTheDeviceSilent() async throws {
    let entry = DemoFleet.kbeaconPro(1)
    var config = KBeaconSimulation.startingProfile(entry).factoryConfiguration
    config.slots = (0..<5).map { SlotConfig.disabled($0) }
    let silent = entry.advertising(config)
    #expect(!silent.hasFrames)
    var schedule = AdvertisingSchedule(devices: [silent, DemoFleet.kbeaconPro(2)], active: true)
    let heard = (0..<20).compactMap { _ in schedule.next()?.address }
    #expect(!heard.isEmpty && !heard.contains(entry.address))
  }

  @Test func aProFleetEntryWithMoreFramesThanSlotsIsRejected() {
    let json = #"""
      {"version":1,"devices":[{"address":"DD:34:02:06:A0:02","kind":"kbeaconPro",
        "iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2},
        "eddystoneUID":{"namespace":"EDD1EBEAC04E5DEFA017","instance":"000000000001"},
        "eddystoneURL":{"url":"https://a.co/"},"eddystoneTLM":{},"sensor":{"batteryMillivolts":3000},
        "system":{"model":1,"batteryPercent":50,"firmware":"5.1"}}]}
      """#
    #expect(throws: JSONDiagnostic.self) { try SimulatedFleet.decode(Data(json.utf8)) }
  }

  /// The scan response's name is cut to 29 bytes at a character boundary, in one pass: cutting a hostile
  /// 20 000-byte name one character at a time from the end took seconds per advertisement (the fault
  /// matrix's hostile devices then went unheard); 200 000 bytes would take minutes.
  @Test(.timeLimit(.minutes(1))) func aLongNameIsCutToTheScanResponseInOnePass() {
    let clock = ContinuousClock()
    let started = clock.now
    #expect(
      SimulatedDevice.scanResponseName(String(repeating: "N", count: 200_000)) == String(repeating: "N", count: 29))
    #expect(clock.now - started < .seconds(1))
    // A two-byte character that would end past byte 29 is left out whole.
    #expect(
      SimulatedDevice.scanResponseName(String(repeating: "a", count: 28) + "éé") == String(repeating: "a", count: 28))
    #expect(SimulatedDevice.scanResponseName("FM_H0") == "FM_H0")
    #expect(SimulatedDevice.scanResponseName("") == nil)
  }
}
