/// Read By Type Request, opcode 0x08 (Core v5.4 Vol 3 Part F §3.4.4.1):
/// `08 | Starting Handle (2) | Ending Handle (2) | Attribute Type (2 or 16)`. GATT discovers
/// characteristics with type 0x2803 (Part G §4.6.1).
public struct ATTReadByTypeRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.readByTypeRequest
  public var startHandle: UInt16
  public var endHandle: UInt16
  public var type: BluetoothUUID

  public init(startHandle: UInt16, endHandle: UInt16, type: BluetoothUUID) {
    self.startHandle = startHandle
    self.endHandle = endHandle
    self.type = type
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    startHandle = try r.u16()
    endHandle = try r.u16()
    type = try r.uuid(size: r.remaining)
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(startHandle)
    buffer.appendLittleEndian(endHandle)
    buffer.append(contentsOf: type.attBytes)
  }
}

/// Read By Type Response, opcode 0x09 (§3.4.4.2): `09 | Length (1) | (handle (2), value (Length − 2))…`.
/// Every value in one response has the same length.
public struct ATTReadByTypeResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.readByTypeResponse

  public struct Entry: Sendable, Hashable {
    public var handle: UInt16
    public var value: [UInt8]
    public init(handle: UInt16, value: [UInt8]) {
      self.handle = handle
      self.value = value
    }
  }

  /// At least one entry; all values of one length (at most 253 octets).
  public var entries: [Entry]

  public init(entries: [Entry]) { self.entries = entries }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    let length = Int(try r.u8())
    guard length >= 2 else { throw r.invalid("length \(length) < 2") }
    guard r.remaining >= length, r.remaining % length == 0 else {
      throw r.badLength("\(r.remaining) octets of \(length)-octet entries")
    }
    var entries: [Entry] = []
    while r.remaining > 0 {
      entries.append(Entry(handle: try r.u16(), value: try r.take(length - 2)))
    }
    self.entries = entries
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.append(UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0)))
    for entry in entries {
      buffer.appendLittleEndian(entry.handle)
      buffer.append(contentsOf: entry.value)
    }
  }
}
