/// Write Request, opcode 0x12 (Core v5.4 Vol 3 Part F §3.4.5.1):
/// `12 | Attribute Handle (2) | Attribute Value (0 … ATT_MTU − 3)`.
public struct ATTWriteRequest: ATTHandleValueLayout {
  public static let opcode = ATTOpcode.writeRequest
  public var handle: UInt16
  public var value: [UInt8]

  public init(handle: UInt16, value: [UInt8]) {
    self.handle = handle
    self.value = value
  }
}

/// Write Response, opcode 0x13 (§3.4.5.2): the opcode alone.
public struct ATTWriteResponse: ATTOpcodeOnlyLayout {
  public static let opcode = ATTOpcode.writeResponse

  public init() {}
}

/// Write Command, opcode 0x52 (§3.4.5.3): `52 | Attribute Handle (2) | Attribute Value (0 … ATT_MTU − 3)`.
/// No response; the server ignores it silently when it cannot be applied.
public struct ATTWriteCommand: ATTHandleValueLayout {
  public static let opcode = ATTOpcode.writeCommand
  public var handle: UInt16
  public var value: [UInt8]

  public init(handle: UInt16, value: [UInt8]) {
    self.handle = handle
    self.value = value
  }
}
