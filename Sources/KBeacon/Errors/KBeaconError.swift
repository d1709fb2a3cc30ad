/// Everything that can go wrong in a KBeacon exchange other than authentication (docs/protocols/kbeacon.md §12).
/// The app-side codes of the SDKs map one to one onto cases here (`sdkCode`); device ack causes arrive in
/// `.deviceRejected`.
public enum KBeaconError: Error, Hashable, Sendable, CustomStringConvertible {
  /// SDK 1 `CfgBusy`: another request is outstanding on this link.
  case busy
  /// SDK 2 `CfgFailed` with the device's cause as `subErrorCode`.
  case deviceRejected(DeviceCause)
  /// SDK 3 `CfgTimeout`: no answer within the action's timeout.
  case timeout(operation: String)
  /// SDK 4 `CfgInputInvalid`: the app refused to send a value outside the spec's range.
  case inputInvalid(String)
  /// SDK 5 `CfgReadNull`: a read produced no configuration.
  case readNull
  /// SDK 6 `CfgStateError`: not connected / not authenticated.
  case stateError(String)
  /// SDK 7 `CfgNoParameters` (v1): nothing to write.
  case noParameters
  /// SDK 8 `CfgNotSupport`: the device lacks the capability.
  case notSupported(String)
  /// SDK 9 `CfgJSONError`: the device's JSON could not be parsed.
  case jsonError(String)
  /// SDK 0x10 `CfgParseSensorMsgFailed`; 0x501/0x502 are the info/data variants.
  case sensorMessageMalformed(String)
  /// A frame broke the framing rules of §4 (bad header, short frame, out-of-sequence fragment, overflow).
  case malformedFrame(String)

  /// The SDK's numeric app-side error code for this case.
  public var sdkCode: Int {
    switch self {
    case .busy: 1
    case .deviceRejected: 2
    case .timeout: 3
    case .inputInvalid: 4
    case .readNull: 5
    case .stateError: 6
    case .noParameters: 7
    case .notSupported: 8
    case .jsonError: 9
    case .sensorMessageMalformed: 0x10
    case .malformedFrame: 2
    }
  }

  public var description: String {
    switch self {
    case .busy: "busy: another request is in progress"
    case .deviceRejected(let cause): "device rejected the request: \(cause)"
    case .timeout(let operation): "timed out waiting for \(operation)"
    case .inputInvalid(let detail): "invalid input: \(detail)"
    case .readNull: "the device returned no configuration"
    case .stateError(let detail): "not ready: \(detail)"
    case .noParameters: "nothing to write"
    case .notSupported(let detail): "not supported by this device: \(detail)"
    case .jsonError(let detail): "malformed JSON from the device: \(detail)"
    case .sensorMessageMalformed(let detail): "malformed sensor history message: \(detail)"
    case .malformedFrame(let detail): "malformed frame: \(detail)"
    }
  }
}

/// Authentication failures (docs/protocols/kbeacon.md §5), a separate type so callers can tell a wrong password
/// (never to be retried automatically: devices may lock out, docs/protocols/kbeacon.md §15 item 5) from transport trouble.
public enum KBeaconAuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The device's challenge digest D1 did not match ours, or the device answered `AUTH_RETURN_FAIL` (0xF1):
  /// the password (or the MAC used in the digest) is wrong. Closing reason `ConnAuthFail`.
  case wrongPassword
  /// The device does not support authentication (ack cause 0x102).
  case notSupported
  /// An auth frame that does not follow §5.
  case malformed(String)
  /// The password itself is not 8–16 UTF-8 characters (§5, §6.3 `pwd`).
  case invalidPasswordLength(Int)

  public var description: String {
    switch self {
    case .wrongPassword: "authentication failed: wrong password"
    case .notSupported: "the device does not support authentication"
    case .malformed(let detail): "malformed authentication frame: \(detail)"
    case .invalidPasswordLength(let n): "a KBeacon password has 8 to 16 characters, not \(n)"
    }
  }
}
