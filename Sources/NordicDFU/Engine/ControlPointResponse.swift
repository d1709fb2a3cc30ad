/// A Secure DFU response or receipt (docs/protocols/nordic-dfu.md §2.4): `60 <request op> <result> [payload]`; with result
/// 0x0B the next byte is an extended error. A PRN receipt is byte-identical to a checksum response.
public struct ControlPointResponse: Equatable, Sendable {
  public var requestOpCode: UInt8
  public var result: Result

  /// Success with its op-specific payload, or an error.
  public enum Result: Equatable, Sendable {
    case success(Payload)
    case failure(DFUResultCode, extended: DFUExtendedError?)
  }

  /// Success payloads of §2.3's table.
  public enum Payload: Equatable, Sendable {
    case none
    case select(maximumSize: UInt32, offset: UInt32, crc: UInt32)
    case checksum(offset: UInt32, crc: UInt32)
    case mtu(UInt16)
    case ping(UInt8)
    case protocolVersion(UInt8)
    /// Hardware/firmware version and anything else: kept raw.
    case raw([UInt8])
  }

  public init(requestOpCode: UInt8, result: Result) {
    self.requestOpCode = requestOpCode
    self.result = result
  }

  public static let responseCode: UInt8 = 0x60

  /// Parses a response. Payload lengths are checked for Select (12), Checksum (8), MTU (2), Ping (1).
  public init(bytes: [UInt8]) throws(ControlPointError) {
    guard bytes.count >= 3 else { throw bytes.isEmpty ? .empty : .wrongLength(op: bytes.count > 1 ? bytes[1] : 0) }
    guard bytes[0] == Self.responseCode else { throw .notAResponse(bytes[0]) }
    requestOpCode = bytes[1]
    let payload = Array(bytes.dropFirst(3))
    guard bytes[2] == DFUResultCode.success.rawValue else {
      let code = DFUResultCode(rawValue: bytes[2]) ?? .unknown
      let ext = code == .extendedError ? payload.first.map { DFUExtendedError(rawValue: $0) ?? .unknown } : nil
      result = .failure(code, extended: ext)
      return
    }
    func need(_ n: Int) throws(ControlPointError) { guard payload.count == n else { throw .wrongLength(op: bytes[1]) } }
    switch requestOpCode {
    case 0x06:
      try need(12)
      result = .success(
        .select(
          maximumSize: LittleEndian.uint32(payload, at: 0), offset: LittleEndian.uint32(payload, at: 4),
          crc: LittleEndian.uint32(payload, at: 8)))
    case 0x03:
      try need(8)
      result = .success(
        .checksum(offset: LittleEndian.uint32(payload, at: 0), crc: LittleEndian.uint32(payload, at: 4)))
    case 0x07:
      try need(2)
      result = .success(.mtu(UInt16(payload[0]) | UInt16(payload[1]) << 8))
    case 0x09:
      try need(1)
      result = .success(.ping(payload[0]))
    case 0x00:
      try need(1)
      result = .success(.protocolVersion(payload[0]))
    default:
      result = .success(payload.isEmpty ? .none : .raw(payload))
    }
  }

  /// The response bytes (the target side).
  public var bytes: [UInt8] {
    var out: [UInt8] = [Self.responseCode, requestOpCode]
    switch result {
    case .failure(let code, let ext):
      out.append(code.rawValue)
      if let ext { out.append(ext.rawValue) }
    case .success(let payload):
      out.append(DFUResultCode.success.rawValue)
      switch payload {
      case .none: break
      case .select(let max, let offset, let crc):
        out += LittleEndian.bytes(max) + LittleEndian.bytes(offset) + LittleEndian.bytes(crc)
      case .checksum(let offset, let crc): out += LittleEndian.bytes(offset) + LittleEndian.bytes(crc)
      case .mtu(let mtu): out += LittleEndian.bytes(mtu)
      case .ping(let id): out.append(id)
      case .protocolVersion(let v): out.append(v)
      case .raw(let raw): out += raw
      }
    }
    return out
  }
}
