import BeaconCore
import KBeacon

/// What a simulated KBeacon's Device Information service (0x180A) says, taken from the device's state at
/// the moment of the read, so it agrees with the configuration the device reports over FEA0
/// (docs/protocols/kbeacon.md §2, §6.3, §7) and follows a DFU (the new `ver` is installed in the configuration).
///
/// | characteristic | value |
/// |---|---|
/// | 0x2A29 Manufacturer Name | `KKM` |
/// | 0x2A24 Model Number | `model` (v2) or `modle` (v1) |
/// | 0x2A26 Firmware Revision | `ver`, exactly as the device reports it (e.g. `V5.22`) [I] |
/// | 0x2A27 Hardware Revision | `hver` |
/// | 0x2A23 System ID | 8 bytes derived from the device address (below) |
///
/// System ID: KKM's iOS SDK reads 0x2A23 to learn the MAC for authentication (§2, I2
/// `systemHandleResponse`): of 8 bytes it takes bytes 0–2 and 5–7 as the address, least significant byte
/// first. The bytes in between are not used by the SDK; we fill them with `FE FF`, the EUI-48 → EUI-64
/// insertion (`FF FE` in printed order) that makes the 8 bytes the System ID of Bluetooth's Device
/// Information Service (a 40-bit manufacturer-defined identifier, then the 24-bit OUI, both little-endian)
/// [I]. For `AA:BB:CC:DD:EE:FF`: `FF EE DD FE FF CC BB AA`.
public struct KBeaconDeviceInformation: Equatable, Sendable {
  public var manufacturer = "KKM"
  public var model: String
  public var firmware: String
  public var hardware: String
  public var systemID: [UInt8]

  /// The values for a device at `address` whose configuration is `configuration`. A key the configuration
  /// lacks reads as an empty string (the device reports nothing for it either).
  public init(address: BluetoothAddress, configuration: KBeaconConfiguration) {
    let fields = configuration.common.fields
    func text(_ key: String) -> String { fields[key]?.stringValue ?? "" }
    model = configuration.generation == .legacy ? text("modle") : text("model")
    firmware = text("ver")
    hardware = text("hver")
    systemID = Self.systemID(address)
  }

  /// The 8-byte System ID for an address (see the type's documentation).
  public static func systemID(_ address: BluetoothAddress) -> [UInt8] {
    let wire = address.littleEndianBytes
    return Array(wire[0..<3]) + [0xFE, 0xFF] + Array(wire[3..<6])
  }
}

extension SimulatedKBeacon {
  /// The device's current Device Information values.
  public var deviceInformation: KBeaconDeviceInformation {
    KBeaconDeviceInformation(address: address, configuration: configuration)
  }

  /// The Device Information service (0x180A): every characteristic is read from the device when read.
  nonisolated func deviceInformationService() -> SimulatedService {
    let kbeacon = self
    func readable(_ uuid: BluetoothUUID, _ value: @escaping @Sendable (KBeaconDeviceInformation) -> [UInt8])
      -> SimulatedCharacteristic
    {
      SimulatedCharacteristic(uuid: uuid, properties: [.read], onRead: { _ in value(await kbeacon.deviceInformation) })
    }
    typealias Database = GenericDeviceDatabase
    return SimulatedService(
      uuid: Database.deviceInformation,
      characteristics: [
        readable(Database.manufacturerName) { Array($0.manufacturer.utf8) },
        readable(Database.modelNumber) { Array($0.model.utf8) },
        readable(Database.systemID) { $0.systemID },
        readable(Database.firmwareRevision) { Array($0.firmware.utf8) },
        readable(Database.hardwareRevision) { Array($0.hardware.utf8) },
      ])
  }
}
