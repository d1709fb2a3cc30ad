/// Error Response, opcode 0x01 (Core v5.4 Vol 3 Part F §3.4.1.1):
/// `01 | request opcode (1) | attribute handle in error (2, LE) | error code (1)`.
public struct ATTErrorResponse: ATTPDUCodable {
  public static let opcode = ATTOpcode.errorResponse
  /// The opcode of the request that failed, kept raw: it may be one we do not know.
  public var requestOpcode: UInt8
  /// The handle that caused the error, or 0x0000 when none applies.
  public var handle: UInt16
  public var error: ATTErrorCode

  public init(request: UInt8, handle: UInt16, error: ATTErrorCode) {
    self.requestOpcode = request
    self.handle = handle
    self.error = error
  }

  public init(request: ATTOpcode, handle: UInt16, error: ATTErrorCode) {
    self.init(request: request.rawValue, handle: handle, error: error)
  }

  public init(_ bytes: [UInt8]) throws(ATTDecodingError) {
    var r = try ATTByteReader(bytes, expecting: Self.opcode)
    requestOpcode = try r.u8()
    handle = try r.u16()
    error = ATTErrorCode(try r.u8())
    try r.finish()
  }

  public func append(to buffer: inout [UInt8]) {
    buffer.append(Self.opcode.rawValue)
    buffer.append(requestOpcode)
    buffer.appendLittleEndian(handle)
    buffer.append(error.rawValue)
  }
}
