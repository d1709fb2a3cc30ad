/// Bounds-checked big-endian reads over a byte array (docs/protocols/kbeacon.md §4: all integers are big-endian).
/// Every read throws instead of trapping so malformed frames become typed errors.
struct ByteReader {
  let bytes: [UInt8]
  private(set) var index: Int

  init(_ bytes: some Collection<UInt8>, at index: Int = 0) {
    self.bytes = Array(bytes)
    self.index = index
  }

  var remaining: Int { max(0, bytes.count - index) }

  mutating func u8(_ what: String) throws(KBeaconError) -> UInt8 {
    guard remaining >= 1 else { throw .malformedFrame("missing \(what)") }
    defer { index += 1 }
    return bytes[index]
  }

  mutating func u16(_ what: String) throws(KBeaconError) -> UInt16 {
    guard remaining >= 2 else { throw .malformedFrame("missing \(what)") }
    defer { index += 2 }
    return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
  }

  mutating func u32(_ what: String) throws(KBeaconError) -> UInt32 {
    guard remaining >= 4 else { throw .malformedFrame("missing \(what)") }
    defer { index += 4 }
    return bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func take(_ count: Int, _ what: String) throws(KBeaconError) -> [UInt8] {
    guard count >= 0, remaining >= count else { throw .malformedFrame("missing \(what)") }
    defer { index += count }
    return Array(bytes[index..<index + count])
  }

  mutating func rest() -> [UInt8] {
    defer { index = bytes.count }
    return index < bytes.count ? Array(bytes[index...]) : []
  }
}

extension Array where Element == UInt8 {
  mutating func appendBigEndian(_ value: UInt16) {
    append(UInt8(value >> 8))
    append(UInt8(value & 0xFF))
  }

  mutating func appendBigEndian(_ value: UInt32) {
    for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
  }
}
