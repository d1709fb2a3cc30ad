/// Any ATT PDU this implementation speaks, decoded by its opcode (Core v5.4 Vol 3 Part F §3.4.8).
/// Read Multiple (0x0E/0x0F), Read Multiple Variable and Signed Write are not decoded: they give
/// `ATTDecodingError(.unknownOpcode)` carrying the opcode, so a server can answer Request Not Supported.
public enum ATTPDU: Sendable, Hashable {
  case errorResponse(ATTErrorResponse)
  case exchangeMTURequest(ATTExchangeMTURequest)
  case exchangeMTUResponse(ATTExchangeMTUResponse)
  case findInformationRequest(ATTFindInformationRequest)
  case findInformationResponse(ATTFindInformationResponse)
  case findByTypeValueRequest(ATTFindByTypeValueRequest)
  case findByTypeValueResponse(ATTFindByTypeValueResponse)
  case readByTypeRequest(ATTReadByTypeRequest)
  case readByTypeResponse(ATTReadByTypeResponse)
  case readRequest(ATTReadRequest)
  case readResponse(ATTReadResponse)
  case readBlobRequest(ATTReadBlobRequest)
  case readBlobResponse(ATTReadBlobResponse)
  case readByGroupTypeRequest(ATTReadByGroupTypeRequest)
  case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
  case writeRequest(ATTWriteRequest)
  case writeResponse(ATTWriteResponse)
  case writeCommand(ATTWriteCommand)
  case prepareWriteRequest(ATTPrepareWriteRequest)
  case prepareWriteResponse(ATTPrepareWriteResponse)
  case executeWriteRequest(ATTExecuteWriteRequest)
  case executeWriteResponse(ATTExecuteWriteResponse)
  case handleValueNotification(ATTHandleValueNotification)
  case handleValueIndication(ATTHandleValueIndication)
  case handleValueConfirmation(ATTHandleValueConfirmation)

  /// Decodes one whole PDU. Never traps: unknown or malformed input throws `ATTDecodingError`.
  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    guard let first = bytes.first else { throw ATTDecodingError(.empty, opcode: nil) }
    guard let opcode = ATTOpcode(rawValue: first) else { throw ATTDecodingError(.unknownOpcode, opcode: first) }
    switch opcode {
    case .errorResponse: self = .errorResponse(try .init(bytes))
    case .exchangeMTURequest: self = .exchangeMTURequest(try .init(bytes))
    case .exchangeMTUResponse: self = .exchangeMTUResponse(try .init(bytes))
    case .findInformationRequest: self = .findInformationRequest(try .init(bytes))
    case .findInformationResponse: self = .findInformationResponse(try .init(bytes))
    case .findByTypeValueRequest: self = .findByTypeValueRequest(try .init(bytes))
    case .findByTypeValueResponse: self = .findByTypeValueResponse(try .init(bytes))
    case .readByTypeRequest: self = .readByTypeRequest(try .init(bytes))
    case .readByTypeResponse: self = .readByTypeResponse(try .init(bytes))
    case .readRequest: self = .readRequest(try .init(bytes))
    case .readResponse: self = .readResponse(try .init(bytes))
    case .readBlobRequest: self = .readBlobRequest(try .init(bytes))
    case .readBlobResponse: self = .readBlobResponse(try .init(bytes))
    case .readByGroupTypeRequest: self = .readByGroupTypeRequest(try .init(bytes))
    case .readByGroupTypeResponse: self = .readByGroupTypeResponse(try .init(bytes))
    case .writeRequest: self = .writeRequest(try .init(bytes))
    case .writeResponse: self = .writeResponse(try .init(bytes))
    case .writeCommand: self = .writeCommand(try .init(bytes))
    case .prepareWriteRequest: self = .prepareWriteRequest(try .init(bytes))
    case .prepareWriteResponse: self = .prepareWriteResponse(try .init(bytes))
    case .executeWriteRequest: self = .executeWriteRequest(try .init(bytes))
    case .executeWriteResponse: self = .executeWriteResponse(try .init(bytes))
    case .handleValueNotification: self = .handleValueNotification(try .init(bytes))
    case .handleValueIndication: self = .handleValueIndication(try .init(bytes))
    case .handleValueConfirmation: self = .handleValueConfirmation(try .init(bytes))
    case .readMultipleRequest, .readMultipleResponse, .signedWriteCommand:
      throw ATTDecodingError(.unknownOpcode, opcode: first, detail: "not supported")
    }
  }

  /// The PDU inside, as its own type.
  public var payload: any ATTPDUCodable {
    switch self {
    case .errorResponse(let p): p
    case .exchangeMTURequest(let p): p
    case .exchangeMTUResponse(let p): p
    case .findInformationRequest(let p): p
    case .findInformationResponse(let p): p
    case .findByTypeValueRequest(let p): p
    case .findByTypeValueResponse(let p): p
    case .readByTypeRequest(let p): p
    case .readByTypeResponse(let p): p
    case .readRequest(let p): p
    case .readResponse(let p): p
    case .readBlobRequest(let p): p
    case .readBlobResponse(let p): p
    case .readByGroupTypeRequest(let p): p
    case .readByGroupTypeResponse(let p): p
    case .writeRequest(let p): p
    case .writeResponse(let p): p
    case .writeCommand(let p): p
    case .prepareWriteRequest(let p): p
    case .prepareWriteResponse(let p): p
    case .executeWriteRequest(let p): p
    case .executeWriteResponse(let p): p
    case .handleValueNotification(let p): p
    case .handleValueIndication(let p): p
    case .handleValueConfirmation(let p): p
    }
  }

  public var opcode: ATTOpcode { type(of: payload).opcode }

  public func append(to buffer: inout [UInt8]) { payload.append(to: &buffer) }

  public var bytes: [UInt8] { payload.bytes }
}
