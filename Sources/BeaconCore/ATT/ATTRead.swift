/// Read Request, opcode 0x0A (Core v5.4 Vol 3 Part F §3.4.4.3): `0A | Attribute Handle (2)`.
public struct ATTReadRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.readRequest
  public var handle: UInt16

  public init(handle: UInt16) { self.handle = handle }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    handle = try r.u16()
    try r.finish()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(handle)
  }
}

/// Read Response, opcode 0x0B (§3.4.4.4): `0B | Attribute Value (0 … ATT_MTU − 1)`.
public struct ATTReadResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.readResponse
  public var value: [UInt8]

  public init(value: [UInt8]) { self.value = value }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    value = r.rest()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.append(contentsOf: value)
  }
}

/// Read Blob Request, opcode 0x0C (§3.4.4.5): `0C | Attribute Handle (2) | Value Offset (2)`.
public struct ATTReadBlobRequest: ATTPDUCodable {
  public static let opcode = ATTOpcode.readBlobRequest
  public var handle: UInt16
  public var offset: UInt16

  public init(handle: UInt16, offset: UInt16) {
    self.handle = handle
    self.offset = offset
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    handle = try r.u16()
    offset = try r.u16()
    try r.finish()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(handle)
    buffer.appendLittleEndian(offset)
  }
}

/// Read Blob Response, opcode 0x0D (§3.4.4.6): `0D | Part Attribute Value (0 … ATT_MTU − 1)`.
public struct ATTReadBlobResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.readBlobResponse
  public var partValue: [UInt8]

  public init(partValue: [UInt8]) { self.partValue = partValue }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    partValue = r.rest()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.append(contentsOf: partValue)
  }
}
