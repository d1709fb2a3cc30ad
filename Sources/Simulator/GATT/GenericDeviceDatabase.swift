import BeaconCore
import KBeacon

/// The GATT database every fleet device gets until its kind supplies a real one: shaped like a KKM
/// KBeacon's (docs/protocols/kbeacon.md §2) so discovery costs what it costs on the real device.
///
/// | service | characteristics |
/// |---|---|
/// | 0x1800 GAP | 0x2A00 Device Name (read; a simulated KBeacon reads its configured name), 0x2A01 Appearance (read) |
/// | 0x1801 GATT | 0x2A05 Service Changed (indicate), 0x2B29 Client Supported Features (read, write), 0x2B2A Database Hash (read; the table's AES-CMAC, `GATTDatabaseHash`) — as Core v5.4 Vol 3 Part G §7 and its Appendix B example lay them out |
/// | 0x180A Device Information | 0x2A29 Manufacturer, 0x2A24 Model, 0x2A26 Firmware Rev, 0x2A27 Hardware Rev (read); a simulated KBeacon adds 0x2A23 System ID and reads them from its state (`KBeaconDeviceInformation`) |
/// | 0xFEA0 KBeacon config | FEA1 (write, write without response), FEA2 (notify), FEA3 (indicate) |
///
/// FEA1 only stores what is written here; the KBeacon simulator replaces these characteristics with its
/// protocol behaviour.
public enum GenericDeviceDatabase {
  public static let gap = BluetoothUUID(0x1800)
  public static let gattService = BluetoothUUID(0x1801)
  public static let deviceInformation = BluetoothUUID(0x180A)
  public static let deviceName = BluetoothUUID(0x2A00)
  public static let appearance = BluetoothUUID(0x2A01)
  public static let serviceChanged = BluetoothUUID(0x2A05)
  public static let manufacturerName = BluetoothUUID(0x2A29)
  public static let modelNumber = BluetoothUUID(0x2A24)
  public static let systemID = BluetoothUUID(0x2A23)
  public static let firmwareRevision = BluetoothUUID(0x2A26)
  public static let hardwareRevision = BluetoothUUID(0x2A27)

  /// GAP, GATT and Device Information services for a device named `name`; `deviceInformation` replaces
  /// the fixed one.
  public static func standardServices(
    name: String, deviceInformation: SimulatedService = deviceInformationService()
  ) -> [SimulatedService] {
    standardServices(
      deviceName: SimulatedCharacteristic(uuid: deviceName, properties: [.read], value: Array(name.utf8)),
      deviceInformation: deviceInformation)
  }

  /// GAP, GATT and Device Information services with the given 0x2A00 Device Name characteristic and
  /// Device Information service (a simulated KBeacon reads both from its configuration).
  public static func standardServices(
    deviceName nameCharacteristic: SimulatedCharacteristic, deviceInformation: SimulatedService
  ) -> [SimulatedService] {
    [
      SimulatedService(
        uuid: gap,
        characteristics: [
          nameCharacteristic,
          // 0x0200 = Generic Tag (Assigned Numbers, Appearance Values).
          SimulatedCharacteristic(uuid: appearance, properties: [.read], value: [0x00, 0x02]),
        ]),
      SimulatedService(
        uuid: gattService,
        characteristics: [
          SimulatedCharacteristic(uuid: serviceChanged, properties: [.indicate], value: [0x01, 0x00, 0xFF, 0xFF]),
          // Client Supported Features (§7.2): one octet, bit 0 Robust Caching; kept as the client writes it.
          SimulatedCharacteristic(
            uuid: GATTCaching.clientSupportedFeatures, properties: [.read, .write], value: [0x00]),
          // Database Hash (§7.3): the server fills in the table's hash (`GATTServer`, `GATTDatabaseHash`).
          SimulatedCharacteristic(uuid: GATTCaching.databaseHash, properties: [.read]),
        ]),
      deviceInformation,
    ]
  }

  /// A Device Information service with fixed values.
  public static func deviceInformationService(
    manufacturer: String = "KKM", model: String = "K4", firmware: String = "5.40", hardware: String = "1.0"
  ) -> SimulatedService {
    SimulatedService(
      uuid: deviceInformation,
      characteristics: [
        SimulatedCharacteristic(uuid: manufacturerName, properties: [.read], value: Array(manufacturer.utf8)),
        SimulatedCharacteristic(uuid: modelNumber, properties: [.read], value: Array(model.utf8)),
        SimulatedCharacteristic(uuid: firmwareRevision, properties: [.read], value: Array(firmware.utf8)),
        SimulatedCharacteristic(uuid: hardwareRevision, properties: [.read], value: Array(hardware.utf8)),
      ])
  }

  /// The KBeacon configuration service with storing (behaviour-less) characteristics.
  public static func kbeaconConfigService() -> SimulatedService {
    SimulatedService(
      uuid: KBeaconGATT.service,
      characteristics: [
        SimulatedCharacteristic(uuid: KBeaconGATT.write, properties: [.write, .writeWithoutResponse]),
        SimulatedCharacteristic(uuid: KBeaconGATT.notify, properties: [.notify]),
        SimulatedCharacteristic(uuid: KBeaconGATT.indicate, properties: [.indicate]),
      ])
  }

  /// A fleet device's server: the KBeacon-like database named after the device (its advertised name, else
  /// `KBPro_` + the last three address octets, as KBeacons name themselves).
  @Sendable public static func server(for device: SimulatedDevice) -> GATTServer {
    let suffix = device.address.bytes.suffix(3).map { hexByte($0) }.joined()
    return GATTServer(services: kbeaconLike(name: device.name ?? "KBPro_\(suffix)"))
  }

  /// The whole KBeacon-like database.
  public static func kbeaconLike(name: String) -> [SimulatedService] {
    standardServices(name: name) + [kbeaconConfigService()]
  }
}
