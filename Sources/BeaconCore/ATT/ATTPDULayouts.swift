/// PDUs laid out as `opcode | Attribute Handle (2) | Attribute Value (rest)`: Write Request and Command
/// (Core v5.4 Vol 3 Part F §3.4.5.1, §3.4.5.3), Handle Value Notification and Indication (§3.4.7.1–2).
/// Each stays its own type; this is their one codec.
public protocol ATTHandleValueLayout: ATTPDUCodable {
  var handle: UInt16 { get }
  var value: [UInt8] { get }
  init(handle: UInt16, value: [UInt8])
}

extension ATTHandleValueLayout {
  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    let handle = try r.u16()
    self.init(handle: handle, value: r.rest())
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.appendLittleEndian(handle)
    buffer.append(contentsOf: value)
  }
}

/// PDUs that are the opcode alone: Write Response (§3.4.5.2), Execute Write Response (§3.4.6.4), Handle
/// Value Confirmation (§3.4.7.3). Anything after the opcode is malformed.
public protocol ATTOpcodeOnlyLayout: ATTPDUCodable {
  init()
}

extension ATTOpcodeOnlyLayout {
  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    try ATTByteReader(bytes, expecting: Self.opcode).finish()
    self.init()
  }

  public func append(to buffer: inout [UInt8]) { buffer.append(Self.opcode.rawValue) }
}
