/// Why bytes could not be decoded as an ATT PDU. Decoding never traps: every malformed input gives one of
/// these, with the opcode when it was known so a server can answer Invalid PDU / Request Not Supported
/// (Core v5.4 Vol 3 Part F §3.4.1.1, §3.4.9).
public struct ATTDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Reason: Sendable, Hashable {
    /// Zero bytes: no opcode.
    case empty
    /// An opcode this implementation does not know (or does not decode, e.g. Read Multiple).
    case unknownOpcode
    /// The PDU was decoded as another opcode than the type asked for.
    case wrongOpcode
    /// Too short, too long, or a list whose length is not a multiple of its entry size.
    case invalidLength
    /// A field holds a value the spec does not allow (format byte, execute flags, UUID size).
    case invalidField
  }

  public var reason: Reason
  /// The first byte of the PDU, when there was one.
  public var opcode: UInt8?
  public var detail: String

  public init(_ reason: Reason, opcode: UInt8?, detail: String = "") {
    self.reason = reason
    self.opcode = opcode
    self.detail = detail
  }

  public var description: String {
    let op =
      opcode.map { code in ATTOpcode(rawValue: code).map { "\($0)" } ?? "opcode 0x\(hexByte(code))" } ?? "ATT PDU"
    let what: String =
      switch reason {
      case .empty: "empty ATT PDU"
      case .unknownOpcode: "unknown \(op)"
      case .wrongOpcode: "unexpected \(op)"
      case .invalidLength: "\(op) has an invalid length"
      case .invalidField: "\(op) has an invalid field"
      }
    return detail.isEmpty ? what : "\(what): \(detail)"
  }
}
