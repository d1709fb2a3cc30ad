/// The CRC the Secure DFU target reports (docs/protocols/nordic-dfu.md §2.4): standard CRC-32 as zlib/`binascii.crc32`
/// computes it — reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF — over all bytes
/// of the current object stream from offset 0. `update` continues a running value so callers can extend a
/// checksum chunk by chunk.
public enum CRC32 {
  static let table: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  /// The CRC-32 of `bytes`.
  public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 { update(0, with: bytes) }

  /// The CRC-32 of the concatenation of what produced `crc` and `bytes`.
  public static func update(_ crc: UInt32, with bytes: some Sequence<UInt8>) -> UInt32 {
    var c = ~crc
    table.withUnsafeBufferPointer { t in
      for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    }
    return ~c
  }
}
