/// Why a recognised beacon frame could not be decoded. Typed so callers (and `MalformedFrame` in JSON) can
/// tell truncation from a reserved value.
public enum FrameDecodingError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
  /// Fewer bytes than the frame layout needs.
  case truncated(needed: Int, available: Int)
  /// A length that the format fixes (iBeacon AD length 0x1A, TLM service data 0x11) differs.
  case wrongLength(expected: Int, actual: Int)
  /// A version this decoder does not know (TLM version ≠ 0 is the encrypted eTLM).
  case unsupportedVersion(UInt8)
  /// Eddystone-URL scheme prefix byte above 0x03.
  case reservedURLScheme(UInt8)
  /// Eddystone-URL byte in a reserved range (0x0E–0x20, 0x7F–0xFF) at `offset` into the encoded URL.
  case reservedURLByte(UInt8, offset: Int)
  /// Eddystone-URL encoded part longer than 17 bytes.
  case urlTooLong(Int)

  public var description: String {
    switch self {
    case .truncated(let needed, let available): "truncated: \(needed) bytes needed, \(available) present"
    case .wrongLength(let expected, let actual): "wrong length: \(actual) bytes, expected \(expected)"
    case .unsupportedVersion(let v): "unsupported version 0x\(hexByte(v))"
    case .reservedURLScheme(let b): "reserved URL scheme 0x\(hexByte(b))"
    case .reservedURLByte(let b, let offset): "reserved URL byte 0x\(hexByte(b)) at offset \(offset)"
    case .urlTooLong(let n): "encoded URL of \(n) bytes exceeds 17"
    }
  }

  /// Throws `.truncated` unless `bytes` holds at least `needed` bytes.
  @inline(__always)
  static func require(_ bytes: RawBytes, _ needed: Int) throws(FrameDecodingError) {
    if bytes.count < needed { throw .truncated(needed: needed, available: bytes.count) }
  }
}

/// A 128-bit identifier printed as `8-4-4-4-12` upper-case hex, stored inline (no allocation): the iBeacon
/// proximity UUID. Unlike `BluetoothUUID` it is never shortened to a 16-bit alias.
public struct ProximityUUID: Sendable, Hashable, Codable, CustomStringConvertible {
  public var high: UInt64
  public var low: UInt64

  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// 16 bytes in printed order (as on air for iBeacon).
  init(_ bytes: RawBytes) {
    var h: UInt64 = 0
    var l: UInt64 = 0
    for i in 0..<8 { h = h << 8 | UInt64(bytes[i]) }
    for i in 8..<16 { l = l << 8 | UInt64(bytes[i]) }
    self.init(high: h, low: l)
  }

  public init?(_ text: String) {
    guard let uuid = BluetoothUUID(text), text.count == 36 else { return nil }
    self.init(RawBytes(uuid.bytes))
  }

  public var bytes: [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
      + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
  }

  public var description: String {
    let h = Hex.encode(bytes)
    var out = ""
    for (i, c) in h.enumerated() {
      if i == 8 || i == 12 || i == 16 || i == 20 { out.append("-") }
      out.append(c)
    }
    return out
  }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let uuid = ProximityUUID(text) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a UUID"))
    }
    self = uuid
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(description)
  }
}
