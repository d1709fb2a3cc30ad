import BeaconCore

/// `ByteReader` over a KBeacon frame or message: big-endian (docs/protocols/kbeacon.md §4: all integers are
/// big-endian), a short read throws `KBeaconError.malformedFrame("missing <field>")`.
typealias FrameReader = ByteReader<KBeaconError>

extension ByteReader where Failure == KBeaconError {
  init(_ bytes: some Collection<UInt8>, at offset: Int = 0) {
    self.init(bytes, at: offset, order: .bigEndian) { _, _, what in .malformedFrame("missing \(what)") }
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
