import BeaconCore

/// A KKM System frame slot (docs/protocols/kbeacon.md §10.4); the MAC is the device address.
public struct SystemSection: Sendable, Hashable, Codable {
  public var model: UInt8
  public var batteryPercent: UInt8
  /// `"major.minor"`, each 0…255.
  public var firmware: String

  public init(model: UInt8, batteryPercent: UInt8, firmware: String) {
    self.model = model
    self.batteryPercent = batteryPercent
    self.firmware = firmware
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case model, batteryPercent, firmware }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    model = try c.decodeInteger(UInt8.self, forKey: .model)
    batteryPercent = try c.decodeInteger(UInt8.self, forKey: .batteryPercent)
    firmware = try c.decode(String.self, forKey: .firmware)
    guard batteryPercent <= 100 else {
      throw invalidValue(decoder, CodingKeys.batteryPercent, "\(batteryPercent) is above 100")
    }
    guard firmwareParts != nil else {
      throw invalidValue(decoder, CodingKeys.firmware, "'\(firmware)' is not major.minor (e.g. 5.12)")
    }
  }

  var firmwareParts: (UInt8, UInt8)? {
    let parts = firmware.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, let major = UInt8(parts[0]), let minor = UInt8(parts[1]) else { return nil }
    return (major, minor)
  }

  public func frame(mac: BluetoothAddress) -> KKMSystemFrame {
    let (major, minor) = firmwareParts ?? (0, 0)
    return KKMSystemFrame(
      model: model, batteryPercent: batteryPercent, macAddress: mac, firmwareMajor: major, firmwareMinor: minor)
  }
}
