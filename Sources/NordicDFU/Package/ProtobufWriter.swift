/// The write side of the proto2 wire format, for building init packets (docs/protocols/nordic-dfu.md §1.3) in tests, the
/// simulator and the benchmark. Fields are appended in call order, the way nrfutil serialises them.
public struct ProtobufWriter: Sendable {
  public private(set) var bytes: [UInt8] = []

  public init() {}

  public mutating func varint(_ field: UInt32, _ value: UInt64) {
    appendVarint(UInt64(field) << 3 | 0)
    appendVarint(value)
  }

  public mutating func bytes(_ field: UInt32, _ payload: [UInt8]) {
    appendVarint(UInt64(field) << 3 | 2)
    appendVarint(UInt64(payload.count))
    bytes += payload
  }

  /// A packed `repeated uint32`.
  public mutating func packed(_ field: UInt32, _ values: [UInt32]) {
    var run = ProtobufWriter()
    for v in values { run.appendVarint(UInt64(v)) }
    bytes(field, run.bytes)
  }

  private mutating func appendVarint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(v & 0x7F) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }
}
