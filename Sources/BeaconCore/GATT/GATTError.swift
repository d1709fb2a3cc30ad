/// The peer answered a request with an Error Response (Core v5.4 Vol 3 Part F §3.4.1.1): which code, for
/// which request, on which handle.
public struct ATTRequestError: Error, Sendable, Hashable, CustomStringConvertible {
  public var code: ATTErrorCode
  /// The request's opcode as echoed by the peer.
  public var request: UInt8
  public var handle: UInt16

  public init(code: ATTErrorCode, request: UInt8, handle: UInt16) {
    self.code = code
    self.request = request
    self.handle = handle
  }

  public init(_ response: ATTErrorResponse) {
    self.init(code: response.error, request: response.requestOpcode, handle: response.handle)
  }

  /// `Read Request on handle 0x0003 failed: Read Not Permitted (0x02)`.
  public var description: String {
    let name = ATTOpcode(rawValue: request).map { "\($0)" } ?? "request 0x\(hexByte(request))"
    return "\(name) on handle 0x\(hexByte(UInt8(handle >> 8)))\(hexByte(UInt8(handle & 0xFF))) failed: \(code)"
  }
}

/// Everything else a GATT procedure can fail with. Link loss surfaces as `LinkError`; Error Responses as
/// `ATTRequestError`.
public enum GATTError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No response within the ATT transaction timeout (Part F §3.3.3); the bearer has been closed.
  case transactionTimeout(request: ATTOpcode, after: Duration)
  /// The peer sent a PDU that does not answer the outstanding request, or a malformed one.
  case protocolViolation(String)
  /// No characteristic, service or descriptor with this UUID in the discovered database.
  case notFound(String)
  /// A value longer than the procedure allows (Write Command: ATT_MTU − 3; any value: 512).
  case valueTooLong(count: Int, limit: Int)
  /// A Prepare Write Response did not echo the request (Reliable Writes, Part G §4.9.5); the queue was
  /// cancelled.
  case reliableWriteMismatch(handle: UInt16, offset: UInt16)

  public var description: String {
    switch self {
    case .transactionTimeout(let request, let after):
      "no answer to \(request) within \(after); ATT transaction timeout, link closed"
    case .protocolViolation(let detail): "ATT protocol violation by the peer: \(detail)"
    case .notFound(let what): "not found on the device: \(what)"
    case .valueTooLong(let count, let limit): "value of \(count) octets is longer than the \(limit) allowed"
    case .reliableWriteMismatch(let handle, let offset):
      "prepared write to handle \(handle) at offset \(offset) was echoed wrongly; write cancelled"
    }
  }
}
