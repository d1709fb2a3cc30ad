/// A run of bytes cut out of an advertising report without copying: it shares the report's storage, so
/// decoding a frame allocates nothing for its raw fields. Indices are zero-based (unlike `ArraySlice`), so
/// `bytes[0]` is always the first byte. Encodes to JSON as upper-case hex (`"0E07192A"`).
public struct RawBytes: RandomAccessCollection, Sendable, Hashable, CustomStringConvertible, Codable {
  /// The underlying slice; its own indices are those of the original array.
  public let slice: ArraySlice<UInt8>

  public init(_ slice: ArraySlice<UInt8>) { self.slice = slice }
  public init(_ array: [UInt8]) { self.slice = array[...] }

  public var startIndex: Int { 0 }
  public var endIndex: Int { slice.count }

  @inlinable
  public subscript(position: Int) -> UInt8 { slice[slice.startIndex &+ position] }

  /// A zero-copy sub-range, zero-based like `self`.
  public func bytes(_ range: Range<Int>) -> RawBytes {
    RawBytes(slice[(slice.startIndex + range.lowerBound)..<(slice.startIndex + range.upperBound)])
  }

  /// The bytes from `offset` to the end (empty when `offset >= count`).
  public func dropping(_ offset: Int) -> RawBytes {
    RawBytes(slice.dropFirst(offset))
  }

  /// A fresh array (use when the bytes must outlive or be independent of the report).
  public var array: [UInt8] { Array(slice) }

  /// Upper-case hex, no separators.
  public var description: String { Hex.encode(slice) }

  public static func == (a: RawBytes, b: RawBytes) -> Bool { a.slice.elementsEqual(b.slice) }
  public func hash(into hasher: inout Hasher) {
    hasher.combine(slice.count)
    for b in slice { hasher.combine(b) }
  }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let bytes = Hex.decode(text) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not hex bytes"))
    }
    self.init(bytes)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

extension RawBytes {
  /// Big-endian unsigned 16-bit value at `offset`; the caller has checked the length.
  @inlinable
  func uint16BE(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }

  /// Little-endian unsigned 16-bit value at `offset`; the caller has checked the length.
  @inlinable
  func uint16LE(at offset: Int) -> UInt16 { UInt16(self[offset + 1]) << 8 | UInt16(self[offset]) }

  /// Big-endian unsigned 32-bit value at `offset`; the caller has checked the length.
  @inlinable
  func uint32BE(at offset: Int) -> UInt32 {
    UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
      | UInt32(self[offset + 3])
  }

  @inlinable
  func int8(at offset: Int) -> Int8 { Int8(bitPattern: self[offset]) }

  @inlinable
  func int16BE(at offset: Int) -> Int16 { Int16(bitPattern: uint16BE(at: offset)) }
}

/// Appends big-endian (and little-endian) integers, used by the frame encoders and the simulator.
extension Array where Element == UInt8 {
  public mutating func appendBE(_ value: UInt16) {
    append(UInt8(value >> 8))
    append(UInt8(value & 0xFF))
  }

  public mutating func appendBE(_ value: UInt32) {
    append(UInt8(value >> 24))
    append(UInt8(value >> 16 & 0xFF))
    append(UInt8(value >> 8 & 0xFF))
    append(UInt8(value & 0xFF))
  }

  public mutating func appendLE(_ value: UInt16) {
    append(UInt8(value & 0xFF))
    append(UInt8(value >> 8))
  }
}
