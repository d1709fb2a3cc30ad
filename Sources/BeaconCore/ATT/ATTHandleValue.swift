/// Handle Value Notification, opcode 0x1B (Core v5.4 Vol 3 Part F §3.4.7.1):
/// `1B | Attribute Handle (2) | Attribute Value (0 … ATT_MTU − 3)`. Not acknowledged.
public struct ATTHandleValueNotification: ATTHandleValueLayout {
  public static let opcode = ATTOpcode.handleValueNotification
  public var handle: UInt16
  public var value: [UInt8]

  public init(handle: UInt16, value: [UInt8]) {
    self.handle = handle
    self.value = value
  }
}

/// Handle Value Indication, opcode 0x1D (§3.4.7.2): same layout as the notification; the client must answer
/// with a Handle Value Confirmation before the server sends another indication.
public struct ATTHandleValueIndication: ATTHandleValueLayout {
  public static let opcode = ATTOpcode.handleValueIndication
  public var handle: UInt16
  public var value: [UInt8]

  public init(handle: UInt16, value: [UInt8]) {
    self.handle = handle
    self.value = value
  }
}

/// Handle Value Confirmation, opcode 0x1E (§3.4.7.3): the opcode alone.
public struct ATTHandleValueConfirmation: ATTOpcodeOnlyLayout {
  public static let opcode = ATTOpcode.handleValueConfirmation

  public init() {}
}
