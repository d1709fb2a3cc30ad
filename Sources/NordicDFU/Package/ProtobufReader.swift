/// A minimal proto2 wire-format reader (varint, 64-bit, length-delimited, 32-bit fields) — enough to decode
/// the `dfu.Packet` init packet of docs/protocols/nordic-dfu.md §1.3 without a protobuf dependency. Pure; every read is
/// bounds-checked and malformed input throws `ProtobufError`.
public struct ProtobufReader {
  /// One wire-format field: its number and its value.
  public enum Value: Equatable, Sendable {
    case varint(UInt64)
    case fixed64(UInt64)
    case bytes([UInt8])
    case fixed32(UInt32)
  }

  private let bytes: [UInt8]
  private var index: Int

  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
    self.index = 0
  }

  /// True when every byte has been consumed.
  public var isAtEnd: Bool { index >= bytes.count }

  /// Reads the next field, or nil at the end of the message.
  public mutating func next() throws(ProtobufError) -> (number: UInt32, value: Value)? {
    guard !isAtEnd else { return nil }
    let key = try readVarint()
    let number = key >> 3
    guard number > 0, number <= 0x1FFF_FFFF else { throw .invalidFieldNumber }
    switch key & 7 {
    case 0: return (UInt32(number), .varint(try readVarint()))
    case 1: return (UInt32(number), .fixed64(try readLittleEndian(8)))
    case 2:
      let length = try readVarint()
      guard length <= UInt64(bytes.count - index) else { throw .truncated }
      let start = index
      index += Int(length)
      return (UInt32(number), .bytes(Array(bytes[start..<index])))
    case 5: return (UInt32(number), .fixed32(UInt32(try readLittleEndian(4))))
    default: throw .unsupportedWireType(UInt8(key & 7))
    }
  }

  /// Reads one varint (also the elements of a packed repeated field, read from its payload).
  mutating func readVarint() throws(ProtobufError) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard index < bytes.count else { throw .truncated }
      let byte = bytes[index]
      index += 1
      guard shift < 64 else { throw .varintTooLong }
      result |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
    }
  }

  private mutating func readLittleEndian(_ count: Int) throws(ProtobufError) -> UInt64 {
    guard bytes.count - index >= count else { throw .truncated }
    var value: UInt64 = 0
    for i in 0..<count { value |= UInt64(bytes[index + i]) << (8 * UInt64(i)) }
    index += count
    return value
  }
}

/// Why a protobuf message could not be read.
public enum ProtobufError: Error, Equatable, Sendable {
  case truncated
  case varintTooLong
  case invalidFieldNumber
  case unsupportedWireType(UInt8)
  /// A field had a wire type other than the schema's.
  case wrongWireType(field: UInt32)
  /// A varint does not fit the field's declared type (e.g. > UInt32.max for a uint32).
  case valueOutOfRange(field: UInt32)
}

extension ProtobufReader.Value {
  /// The value of a `uint32`/`enum`/`bool` field.
  func uint32(field: UInt32) throws(ProtobufError) -> UInt32 {
    guard case .varint(let v) = self else { throw .wrongWireType(field: field) }
    guard v <= UInt64(UInt32.max) else { throw .valueOutOfRange(field: field) }
    return UInt32(v)
  }

  /// The payload of a `bytes`/sub-message field.
  func bytes(field: UInt32) throws(ProtobufError) -> [UInt8] {
    guard case .bytes(let b) = self else { throw .wrongWireType(field: field) }
    return b
  }

  /// The elements of a `repeated uint32` field, packed (one length-delimited run) or not (one varint).
  func packedUInt32s(field: UInt32) throws(ProtobufError) -> [UInt32] {
    switch self {
    case .varint: return [try uint32(field: field)]
    case .bytes(let run):
      var values: [UInt32] = []
      var inner = ProtobufReader(run)
      while !inner.isAtEnd {
        let v = try inner.readVarint()
        guard v <= UInt64(UInt32.max) else { throw .valueOutOfRange(field: field) }
        values.append(UInt32(v))
      }
      return values
    default: throw .wrongWireType(field: field)
    }
  }
}
