/// Result codes of a Secure DFU response (docs/protocols/nordic-dfu.md §2.4, SDK `nrf_dfu_result_t`).
public enum DFUResultCode: UInt8, Sendable, Equatable {
  case invalidOpCode = 0x00
  case success = 0x01
  case opCodeNotSupported = 0x02
  case invalidParameter = 0x03
  case insufficientResources = 0x04
  case invalidObject = 0x05
  case signatureMismatch = 0x06
  case unsupportedType = 0x07
  case operationNotPermitted = 0x08
  case operationFailed = 0x0A
  case extendedError = 0x0B
  case unknown = 0xFF

  public var text: String {
    switch self {
    case .invalidOpCode: "invalid op code"
    case .success: "success"
    case .opCodeNotSupported: "op code not supported"
    case .invalidParameter: "invalid parameter"
    case .insufficientResources: "insufficient resources"
    case .invalidObject: "invalid object (bad init packet or signature)"
    case .signatureMismatch: "signature mismatch"
    case .unsupportedType: "unsupported object type"
    case .operationNotPermitted: "operation not permitted"
    case .operationFailed: "operation failed"
    case .extendedError: "extended error"
    case .unknown: "unknown result code"
    }
  }
}

/// Extended error codes following result 0x0B (§2.4).
public enum DFUExtendedError: UInt8, Sendable, Equatable {
  case noError = 0x00
  case invalidErrorCode = 0x01
  case wrongCommandFormat = 0x02
  case unknownCommand = 0x03
  case initCommandInvalid = 0x04
  case firmwareVersionFailure = 0x05
  case hardwareVersionFailure = 0x06
  case softDeviceVersionFailure = 0x07
  case signatureMissing = 0x08
  case wrongHashType = 0x09
  case hashFailed = 0x0A
  case wrongSignatureType = 0x0B
  case verificationFailed = 0x0C
  case insufficientSpace = 0x0D
  case firmwareAlreadyPresent = 0x0E
  case unknown = 0xFF

  public var text: String {
    switch self {
    case .noError: "no error"
    case .invalidErrorCode: "invalid error code"
    case .wrongCommandFormat: "wrong command format"
    case .unknownCommand: "unknown command"
    case .initCommandInvalid: "init command invalid"
    case .firmwareVersionFailure: "firmware version too low"
    case .hardwareVersionFailure: "hardware version mismatch"
    case .softDeviceVersionFailure: "SoftDevice requirement not met"
    case .signatureMissing: "signature missing"
    case .wrongHashType: "wrong hash type"
    case .hashFailed: "hash could not be computed"
    case .wrongSignatureType: "wrong signature type"
    case .verificationFailed: "image hash does not match the init packet"
    case .insufficientSpace: "insufficient space"
    case .firmwareAlreadyPresent: "firmware already present"
    case .unknown: "unknown extended error"
    }
  }
}
