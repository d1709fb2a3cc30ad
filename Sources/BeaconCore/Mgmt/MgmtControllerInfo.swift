/// The reply of Read Controller Information (`doc/mgmt-api.txt`, command 0x0004): address, Bluetooth
/// version, manufacturer, supported and current settings, class of device, name (249 octets) and short
/// name (11), both NUL-padded UTF-8.
public struct MgmtControllerInfo: Sendable, Hashable {
  public var address: BluetoothAddress
  public var bluetoothVersion: UInt8
  public var manufacturer: UInt16
  public var supportedSettings: MgmtSettings
  public var currentSettings: MgmtSettings
  public var name: String
  public var shortName: String

  public init(returnParameters: [UInt8]) throws {
    var reader = HCIWireReader(returnParameters, context: "Read Controller Information reply")
    address = try reader.address()
    bluetoothVersion = try reader.u8()
    manufacturer = try reader.u16()
    supportedSettings = MgmtSettings(rawValue: try reader.u32())
    currentSettings = MgmtSettings(rawValue: try reader.u32())
    _ = try reader.take(3)  // Class_Of_Device
    name = Self.cString(try reader.take(249))
    shortName = Self.cString(try reader.take(11))
  }

  private static func cString(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
  }
}

/// The reply of Read Controller Index List (command 0x0003): a count, then that many indexes.
public struct MgmtControllerIndexList: Sendable, Hashable {
  public var indexes: [UInt16]

  public init(returnParameters: [UInt8]) throws {
    var reader = HCIWireReader(returnParameters, context: "Read Controller Index List reply")
    let count = Int(try reader.u16())
    indexes = try (0..<count).map { _ in try reader.u16() }
  }
}

/// The return parameter of Set Powered and Set Low Energy: Current_Settings.
extension MgmtSettings {
  public init(returnParameters: [UInt8]) throws {
    var reader = HCIWireReader(returnParameters, context: "mgmt Current_Settings")
    self.init(rawValue: try reader.u32())
  }
}
