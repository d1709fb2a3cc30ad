/// A bounds-checked little-endian reader over one PDU's bytes: every read either succeeds or throws
/// `ATTDecodingError(.invalidLength)`, so PDU decoders never index out of range.
struct ATTByteReader {
  private let bytes: [UInt8]
  private(set) var position = 0
  let opcode: UInt8

  /// Starts after the opcode byte, which must be `expected`.
  init(_ bytes: [UInt8], expecting expected: ATTOpcode) throws(ATTDecodingError) {
    guard let first = bytes.first else { throw ATTDecodingError(.empty, opcode: nil) }
    guard first == expected.rawValue else {
      throw ATTDecodingError(.wrongOpcode, opcode: first, detail: "expected \(expected)")
    }
    self.bytes = bytes
    self.opcode = first
    position = 1
  }

  var remaining: Int { bytes.count - position }

  mutating func uint8() throws(ATTDecodingError) -> UInt8 {
    guard remaining >= 1 else { throw shortError(1) }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func uint16() throws(ATTDecodingError) -> UInt16 {
    guard remaining >= 2 else { throw shortError(2) }
    defer { position += 2 }
    return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
  }

  mutating func take(_ count: Int) throws(ATTDecodingError) -> [UInt8] {
    guard count >= 0, remaining >= count else { throw shortError(count) }
    defer { position += count }
    return Array(bytes[position..<position + count])
  }

  /// Everything left (possibly nothing).
  mutating func rest() -> [UInt8] {
    defer { position = bytes.count }
    return Array(bytes[position...])
  }

  /// A 2- or 16-octet UUID, as ATT allows (§3.2.1).
  mutating func uuid(size: Int) throws(ATTDecodingError) -> BluetoothUUID {
    guard size == 2 || size == 16 else { throw invalid("UUID of \(size) octets") }
    let raw = try take(size)
    guard let uuid = BluetoothUUID(littleEndian: raw) else { throw invalid("UUID") }
    return uuid
  }

  /// Throws unless every byte was consumed.
  func finish() throws(ATTDecodingError) {
    guard remaining == 0 else {
      throw ATTDecodingError(.invalidLength, opcode: opcode, detail: "\(remaining) trailing octet(s)")
    }
  }

  func invalid(_ detail: String) -> ATTDecodingError { ATTDecodingError(.invalidField, opcode: opcode, detail: detail) }
  func badLength(_ detail: String) -> ATTDecodingError {
    ATTDecodingError(.invalidLength, opcode: opcode, detail: detail)
  }

  private func shortError(_ needed: Int) -> ATTDecodingError {
    ATTDecodingError(.invalidLength, opcode: opcode, detail: "needs \(needed) more octet(s) at offset \(position)")
  }
}

extension Array where Element == UInt8 {
  /// Appends a little-endian 16-bit value, as every ATT handle, offset and MTU travels.
  mutating func appendLittleEndian(_ value: UInt16) {
    append(UInt8(value & 0xFF))
    append(UInt8(value >> 8))
  }
}

/// One ATT PDU type: decoded from a whole PDU (opcode included) and appended to a buffer.
public protocol ATTPDUCodable: Sendable, Hashable {
  /// The opcode every instance of this type carries.
  static var opcode: ATTOpcode { get }
  /// Decodes a whole PDU, opcode included; throws `ATTDecodingError` on anything malformed.
  init(_ bytes: [UInt8]) throws(ATTDecodingError)
  /// Appends the whole PDU, opcode included.
  func append(to buffer: inout [UInt8])
}

extension ATTPDUCodable {
  /// The whole PDU as bytes.
  public var bytes: [UInt8] {
    var buffer: [UInt8] = []
    append(to: &buffer)
    return buffer
  }
}
