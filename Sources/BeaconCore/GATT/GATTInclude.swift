/// An include declaration (Core v5.4 Vol 3 Part G §3.2): attribute type «Include» (0x2802), its value the
/// included service's handle range and — only when that service's UUID is 16-bit — the UUID:
/// `Included Service Attribute Handle (2) | End Group Handle (2) | Service UUID (2, or absent)`.
/// For a 128-bit service the client reads the UUID from the included service's declaration (§4.5.1).
public struct GATTInclude: Sendable, Hashable, Codable {
  /// The handle of the include declaration itself.
  public var handle: UInt16
  public var startHandle: UInt16
  public var endHandle: UInt16
  public var uuid: BluetoothUUID

  public init(handle: UInt16, startHandle: UInt16, endHandle: UInt16, uuid: BluetoothUUID) {
    self.handle = handle
    self.startHandle = startHandle
    self.endHandle = endHandle
    self.uuid = uuid
  }

  /// The declaration's value: 6 octets with a 16-bit UUID, 4 without (a 128-bit UUID is left out).
  public static func value(startHandle: UInt16, endHandle: UInt16, uuid: BluetoothUUID) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendLittleEndian(startHandle)
    bytes.appendLittleEndian(endHandle)
    if uuid.attBytes.count == 2 { bytes += uuid.attBytes }
    return bytes
  }
}

/// The Characteristic Extended Properties descriptor's value (0x2900, Core v5.4 Vol 3 Part G §3.3.3.1,
/// Table 3.11): a 16-bit field, bit 0 Reliable Write, bit 1 Writable Auxiliaries, the rest reserved.
public struct GATTExtendedProperties: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public static let reliableWrite = Self(rawValue: 0x0001)
  public static let writableAuxiliaries = Self(rawValue: 0x0002)

  /// Decodes the descriptor value: exactly 2 octets, little-endian; nil otherwise.
  public init?(descriptorValue value: [UInt8]) {
    guard value.count == 2 else { return nil }
    rawValue = UInt16(value[0]) | UInt16(value[1]) << 8
  }

  /// `["reliable-write", "writable-auxiliaries"]`; reserved bits as `0x0004`.
  public var names: [String] {
    var names: [String] = []
    if contains(.reliableWrite) { names.append("reliable-write") }
    if contains(.writableAuxiliaries) { names.append("writable-auxiliaries") }
    let reserved = rawValue & ~0x0003
    if reserved != 0 { names.append("reserved 0x" + String(reserved, radix: 16, uppercase: true)) }
    return names
  }

  public var description: String { names.joined(separator: ",") }
}
