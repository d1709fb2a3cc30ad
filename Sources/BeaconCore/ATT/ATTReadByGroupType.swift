/// Read By Group Type Request, opcode 0x10 (Core v5.4 Vol 3 Part F §3.4.4.9):
/// `10 | Starting Handle (2) | Ending Handle (2) | Attribute Group Type (2 or 16)`. GATT discovers primary
/// services with group type 0x2800 (Part G §4.4.1).
public struct ATTReadByGroupTypeRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.readByGroupTypeRequest
  public var startHandle: UInt16
  public var endHandle: UInt16
  public var groupType: BluetoothUUID

  public init(startHandle: UInt16, endHandle: UInt16, groupType: BluetoothUUID) {
    self.startHandle = startHandle
    self.endHandle = endHandle
    self.groupType = groupType
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    startHandle = try r.u16()
    endHandle = try r.u16()
    groupType = try r.uuid(size: r.remaining)
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(startHandle)
    buffer.appendLittleEndian(endHandle)
    buffer.append(contentsOf: groupType.attBytes)
  }
}

/// Read By Group Type Response, opcode 0x11 (§3.4.4.10):
/// `11 | Length (1) | (handle (2), end group handle (2), value (Length − 4))…`, all values of one length.
public struct ATTReadByGroupTypeResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.readByGroupTypeResponse

  public struct Entry: Sendable, Hashable {
    public var handle: UInt16
    public var endGroupHandle: UInt16
    public var value: [UInt8]
    public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
      self.handle = handle
      self.endGroupHandle = endGroupHandle
      self.value = value
    }
  }

  public var entries: [Entry]

  public init(entries: [Entry]) { self.entries = entries }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    let length = Int(try r.u8())
    guard length >= 4 else { throw r.invalid("length \(length) < 4") }
    guard r.remaining >= length, r.remaining % length == 0 else {
      throw r.badLength("\(r.remaining) octets of \(length)-octet entries")
    }
    var entries: [Entry] = []
    while r.remaining > 0 {
      entries.append(
        Entry(handle: try r.u16(), endGroupHandle: try r.u16(), value: try r.take(length - 4)))
    }
    self.entries = entries
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.append(UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0)))
    for entry in entries {
      buffer.appendLittleEndian(entry.handle)
      buffer.appendLittleEndian(entry.endGroupHandle)
      buffer.append(contentsOf: entry.value)
    }
  }
}
