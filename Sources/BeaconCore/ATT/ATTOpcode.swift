/// ATT PDU opcodes (Core v5.4 Vol 3 Part F §3.4.8, Table 3.37). Bit 6 is the Command flag, bit 7 the
/// Authentication Signature flag (§3.3.1).
public enum ATTOpcode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  case errorResponse = 0x01
  case exchangeMTURequest = 0x02
  case exchangeMTUResponse = 0x03
  case findInformationRequest = 0x04
  case findInformationResponse = 0x05
  case findByTypeValueRequest = 0x06
  case findByTypeValueResponse = 0x07
  case readByTypeRequest = 0x08
  case readByTypeResponse = 0x09
  case readRequest = 0x0A
  case readResponse = 0x0B
  case readBlobRequest = 0x0C
  case readBlobResponse = 0x0D
  case readMultipleRequest = 0x0E
  case readMultipleResponse = 0x0F
  case readByGroupTypeRequest = 0x10
  case readByGroupTypeResponse = 0x11
  case writeRequest = 0x12
  case writeResponse = 0x13
  case prepareWriteRequest = 0x16
  case prepareWriteResponse = 0x17
  case executeWriteRequest = 0x18
  case executeWriteResponse = 0x19
  case handleValueNotification = 0x1B
  case handleValueIndication = 0x1D
  case handleValueConfirmation = 0x1E
  case writeCommand = 0x52
  case signedWriteCommand = 0xD2

  /// The Command flag (bit 6): commands get no response and unknown ones are ignored (§3.4.9).
  public static func isCommand(_ raw: UInt8) -> Bool { raw & 0x40 != 0 }

  /// Opcodes a client sends and a server must answer (a response or an Error Response).
  public var isRequest: Bool {
    switch self {
    case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest,
      .readRequest, .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest,
      .prepareWriteRequest, .executeWriteRequest:
      true
    default: false
    }
  }

  /// For a request, the opcode of its success response (request + 1, §3.4.8).
  public var responseOpcode: ATTOpcode? {
    isRequest ? ATTOpcode(rawValue: rawValue + 1) : nil
  }

  public var description: String {
    switch self {
    case .errorResponse: "Error Response"
    case .exchangeMTURequest: "Exchange MTU Request"
    case .exchangeMTUResponse: "Exchange MTU Response"
    case .findInformationRequest: "Find Information Request"
    case .findInformationResponse: "Find Information Response"
    case .findByTypeValueRequest: "Find By Type Value Request"
    case .findByTypeValueResponse: "Find By Type Value Response"
    case .readByTypeRequest: "Read By Type Request"
    case .readByTypeResponse: "Read By Type Response"
    case .readRequest: "Read Request"
    case .readResponse: "Read Response"
    case .readBlobRequest: "Read Blob Request"
    case .readBlobResponse: "Read Blob Response"
    case .readMultipleRequest: "Read Multiple Request"
    case .readMultipleResponse: "Read Multiple Response"
    case .readByGroupTypeRequest: "Read By Group Type Request"
    case .readByGroupTypeResponse: "Read By Group Type Response"
    case .writeRequest: "Write Request"
    case .writeResponse: "Write Response"
    case .prepareWriteRequest: "Prepare Write Request"
    case .prepareWriteResponse: "Prepare Write Response"
    case .executeWriteRequest: "Execute Write Request"
    case .executeWriteResponse: "Execute Write Response"
    case .handleValueNotification: "Handle Value Notification"
    case .handleValueIndication: "Handle Value Indication"
    case .handleValueConfirmation: "Handle Value Confirmation"
    case .writeCommand: "Write Command"
    case .signedWriteCommand: "Signed Write Command"
    }
  }
}

/// ATT protocol constants (Core v5.4 Vol 3 Part F §3.2.8–§3.2.9, Part G §5.2.1).
public enum ATTLimits {
  /// The LE default and minimum ATT_MTU.
  public static let defaultMTU = 23
  /// The largest ATT_MTU the GATT client asks for: 247 fills one LE Data Length Extension packet (251 − 4).
  public static let preferredMTU = 247
  /// Longest attribute value (§3.2.9).
  public static let maximumValueLength = 512
}
