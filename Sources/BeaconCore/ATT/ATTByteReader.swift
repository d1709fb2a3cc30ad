/// `ByteReader` over one ATT PDU: little-endian (Core Vol 3 Part F §3.2.8), a short read throws
/// `ATTDecodingError(.invalidLength)` with the PDU's opcode, so PDU decoders never index out of range.
typealias ATTByteReader = ByteReader<ATTDecodingError>

extension ByteReader where Failure == ATTDecodingError {
  /// Starts after the opcode byte, which must be `expected`.
  init(_ bytes: [UInt8], expecting expected: ATTOpcode) throws(ATTDecodingError) {
    guard let first = bytes.first else { throw ATTDecodingError(.empty, opcode: nil) }
    guard first == expected.rawValue else {
      throw ATTDecodingError(.wrongOpcode, opcode: first, detail: "expected \(expected)")
    }
    self.init(bytes, at: 1, order: .littleEndian) { needed, offset, _ in
      ATTDecodingError(.invalidLength, opcode: first, detail: "needs \(needed) more octet(s) at offset \(offset)")
    }
  }

  /// The PDU's opcode (its first octet).
  var opcode: UInt8 { bytes[0] }

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
