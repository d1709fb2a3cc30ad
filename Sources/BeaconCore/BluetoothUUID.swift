/// A Bluetooth UUID (Core Vol 3 Part B §2.5.1). Every UUID is kept as its full 128-bit value so that a
/// 16-bit UUID and its expansion on the Bluetooth Base UUID `0000xxxx-0000-1000-8000-00805F9B34FB` compare
/// equal. `bytes` are in the printed (big-endian) order; ATT carries them little-endian.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible, Codable {
  /// 16 bytes, printed order.
  public let bytes: [UInt8]

  static let baseSuffix: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

  public init(_ short: UInt16) { self.init(uint32: UInt32(short)) }

  public init(uint32 value: UInt32) {
    bytes =
      [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
      + Self.baseSuffix
  }

  /// 16 bytes in printed order.
  public init?(bytes: [UInt8]) {
    guard bytes.count == 16 else { return nil }
    self.bytes = bytes
  }

  /// 2, 4 or 16 bytes in ATT (little-endian) order.
  public init?(littleEndian data: some Collection<UInt8>) {
    let reversed = Array(data.reversed())
    switch reversed.count {
    case 2: self.init(UInt16(reversed[0]) << 8 | UInt16(reversed[1]))
    case 4: self.init(uint32: reversed.reduce(0) { $0 << 8 | UInt32($1) })
    case 16: self.init(bytes: reversed)
    default: return nil
    }
  }

  /// Parses `FEA1`, `0xFEA1`, an 8-digit 32-bit form, or the 36-character form.
  public init?(_ text: some StringProtocol) {
    var t = Substring(text)
    if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
    if t.count == 4, let v = UInt16(t, radix: 16) {
      self.init(v)
      return
    }
    if t.count == 8, let v = UInt32(t, radix: 16) {
      self.init(uint32: v)
      return
    }
    let groups = t.split(separator: "-", omittingEmptySubsequences: false)
    guard t.count == 36, groups.map(\.count) == [8, 4, 4, 4, 12], let raw = Hex.decode(String(t.filter { $0 != "-" }))
    else { return nil }
    self.init(bytes: raw)
  }

  /// The 16-bit alias when this UUID lies on the Base UUID with a zero upper half.
  public var shortValue: UInt16? {
    guard bytes[0] == 0, bytes[1] == 0, Array(bytes[4...]) == Self.baseSuffix else { return nil }
    return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
  }

  /// The shortest form ATT allows: 2 bytes for a 16-bit alias, otherwise 16; little-endian.
  public var attBytes: [UInt8] {
    if let s = shortValue { return [UInt8(s & 0xFF), UInt8(s >> 8)] }
    return bytes.reversed()
  }

  public var description: String {
    if let s = shortValue { return hexByte(UInt8(s >> 8)) + hexByte(UInt8(s & 0xFF)) }
    let h = Hex.encode(bytes)
    let i = h.startIndex
    func part(_ a: Int, _ b: Int) -> Substring { h[h.index(i, offsetBy: a)..<h.index(i, offsetBy: b)] }
    return [part(0, 8), part(8, 12), part(12, 16), part(16, 20), part(20, 32)].joined(separator: "-")
  }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let uuid = BluetoothUUID(text) else {
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
