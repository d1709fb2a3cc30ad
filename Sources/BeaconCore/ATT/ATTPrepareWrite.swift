/// Prepare Write Request, opcode 0x16 (Core v5.4 Vol 3 Part F §3.4.6.1):
/// `16 | Attribute Handle (2) | Value Offset (2) | Part Attribute Value (0 … ATT_MTU − 5)`.
public struct ATTPrepareWriteRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.prepareWriteRequest
  public var handle: UInt16
  public var offset: UInt16
  public var partValue: [UInt8]

  public init(handle: UInt16, offset: UInt16, partValue: [UInt8]) {
    self.handle = handle
    self.offset = offset
    self.partValue = partValue
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    handle = try r.u16()
    offset = try r.u16()
    partValue = r.rest()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(handle)
    buffer.appendLittleEndian(offset)
    buffer.append(contentsOf: partValue)
  }
}

/// Prepare Write Response, opcode 0x17 (§3.4.6.2): echoes the request's handle, offset and part value so
/// the client can check them (GATT Reliable Writes, Part G §4.9.5).
public struct ATTPrepareWriteResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.prepareWriteResponse
  public var handle: UInt16
  public var offset: UInt16
  public var partValue: [UInt8]

  public init(handle: UInt16, offset: UInt16, partValue: [UInt8]) {
    self.handle = handle
    self.offset = offset
    self.partValue = partValue
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    handle = try r.u16()
    offset = try r.u16()
    partValue = r.rest()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(handle)
    buffer.appendLittleEndian(offset)
    buffer.append(contentsOf: partValue)
  }
}

/// Execute Write Request, opcode 0x18 (§3.4.6.3): `18 | Flags (1)`, 0x00 cancels every prepared write,
/// 0x01 writes them all. Other flag values are reserved (decoding rejects them).
public struct ATTExecuteWriteRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.executeWriteRequest

  public enum Flags: UInt8, Sendable, Hashable {
    case cancel = 0x00
    case write = 0x01
  }

  public var flags: Flags

  public init(flags: Flags) { self.flags = flags }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    let raw = try r.u8()
    try r.finish()
    guard let flags = Flags(rawValue: raw) else { throw r.invalid("flags 0x\(hexByte(raw))") }
    self.flags = flags
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.append(flags.rawValue)
  }
}

/// Execute Write Response, opcode 0x19 (§3.4.6.4): the opcode alone.
public struct ATTExecuteWriteResponse: ATTOpcodeOnlyLayout {
  public static let opcode = ATTOpcode.executeWriteResponse

  public init() {}
}
