/// Find By Type Value Request, opcode 0x06 (Core v5.4 Vol 3 Part F §3.4.3.3):
/// `06 | Starting Handle (2) | Ending Handle (2) | Attribute Type (2, a 16-bit UUID) | Attribute Value (0…)`.
/// GATT uses it for "Discover Primary Service by Service UUID" (Part G §4.4.2).
public struct ATTFindByTypeValueRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.findByTypeValueRequest
  public var startHandle: UInt16
  public var endHandle: UInt16
  /// Only a 16-bit UUID can be carried.
  public var type: UInt16
  public var value: [UInt8]

  public init(startHandle: UInt16, endHandle: UInt16, type: UInt16, value: [UInt8]) {
    self.startHandle = startHandle
    self.endHandle = endHandle
    self.type = type
    self.value = value
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    startHandle = try r.u16()
    endHandle = try r.u16()
    type = try r.u16()
    value = r.rest()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(startHandle)
    buffer.appendLittleEndian(endHandle)
    buffer.appendLittleEndian(type)
    buffer.append(contentsOf: value)
  }
}

/// Find By Type Value Response, opcode 0x07 (§3.4.3.4): `07 | (Found Attribute Handle (2), Group End Handle
/// (2))…`, at least one pair.
public struct ATTFindByTypeValueResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.findByTypeValueResponse

  public struct HandleRange: Sendable, Hashable {
    public var foundHandle: UInt16
    public var groupEndHandle: UInt16
    public init(foundHandle: UInt16, groupEndHandle: UInt16) {
      self.foundHandle = foundHandle
      self.groupEndHandle = groupEndHandle
    }
  }

  public var ranges: [HandleRange]

  public init(ranges: [HandleRange]) { self.ranges = ranges }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    guard r.remaining >= 4, r.remaining % 4 == 0 else { throw r.badLength("\(r.remaining) octets of 4-octet pairs") }
    var ranges: [HandleRange] = []
    while r.remaining > 0 {
      ranges.append(HandleRange(foundHandle: try r.u16(), groupEndHandle: try r.u16()))
    }
    self.ranges = ranges
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    for range in ranges {
      buffer.appendLittleEndian(range.foundHandle)
      buffer.appendLittleEndian(range.groupEndHandle)
    }
  }
}
