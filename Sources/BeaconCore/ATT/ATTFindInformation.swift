/// Find Information Request, opcode 0x04 (Core v5.4 Vol 3 Part F §3.4.3.1):
/// `04 | Starting Handle (2) | Ending Handle (2)`.
public struct ATTFindInformationRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.findInformationRequest
  public var startHandle: UInt16
  public var endHandle: UInt16

  public init(startHandle: UInt16, endHandle: UInt16) {
    self.startHandle = startHandle
    self.endHandle = endHandle
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    startHandle = try r.u16()
    endHandle = try r.u16()
    try r.finish()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(startHandle)
    buffer.appendLittleEndian(endHandle)
  }
}

/// Find Information Response, opcode 0x05 (§3.4.3.2): `05 | Format (1) | (handle (2), UUID)…` where format
/// 0x01 means 16-bit UUIDs and 0x02 128-bit UUIDs. Every entry in one response has the same UUID size.
public struct ATTFindInformationResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.findInformationResponse

  public struct Entry: Sendable, Hashable {
    public var handle: UInt16
    public var type: BluetoothUUID
    public init(handle: UInt16, type: BluetoothUUID) {
      self.handle = handle
      self.type = type
    }
  }

  /// At least one entry; all with UUIDs of the same ATT size.
  public var entries: [Entry]

  public init(entries: [Entry]) { self.entries = entries }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    let format = try r.u8()
    let uuidSize: Int
    switch format {
    case 0x01: uuidSize = 2
    case 0x02: uuidSize = 16
    default: throw r.invalid("format 0x\(hexByte(format))")
    }
    let entrySize = 2 + uuidSize
    guard r.remaining >= entrySize, r.remaining % entrySize == 0 else {
      throw r.badLength("\(r.remaining) octets of \(entrySize)-octet entries")
    }
    var entries: [Entry] = []
    while r.remaining > 0 {
      entries.append(Entry(handle: try r.u16(), type: try r.uuid(size: uuidSize)))
    }
    self.entries = entries
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    let short = entries.first?.type.shortValue != nil
    buffer.append(short ? 0x01 : 0x02)
    for entry in entries {
      buffer.appendLittleEndian(entry.handle)
      buffer.append(contentsOf: short ? entry.type.attBytes : entry.type.bytes.reversed())
    }
  }
}
