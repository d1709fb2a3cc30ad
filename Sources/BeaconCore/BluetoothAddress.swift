/// A 48-bit Bluetooth device address (Core Vol 6 Part B §1.3), kept in printed order: the first byte of
/// `description` ("AA:BB:CC:DD:EE:FF") is the most significant. On the wire (HCI, ATT, `bdaddr_t`) the
/// same address travels least significant byte first; `littleEndianBytes` gives that order.
public struct BluetoothAddress: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
  /// The 48 address bits in the low bits of a `UInt64`.
  public let rawValue: UInt64

  public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

  /// Six bytes in printed order (most significant first).
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 6 else { return nil }
    self.init(rawValue: bytes.reduce(0) { $0 << 8 | UInt64($1) })
  }

  /// Six bytes in wire order (least significant first), as in HCI events and `bdaddr_t`.
  public init?(littleEndianBytes bytes: some Collection<UInt8>) {
    guard bytes.count == 6 else { return nil }
    self.init(bytes: bytes.reversed())
  }

  /// Parses `AA:BB:CC:DD:EE:FF` or `AA-BB-…` or twelve hex digits, in any case. Only ASCII hex digits
  /// count (`UInt64(_:radix:)` alone would also take a sign: `+A:BB:…`).
  public init?(_ text: some StringProtocol) {
    let hex = String(text.filter { $0 != ":" && $0 != "-" })
    guard hex.count == 12, Hex.decode(hex)?.count == 6, let value = UInt64(hex, radix: 16) else { return nil }
    if text.count != 12 {
      let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
      guard parts.count == 6, parts.allSatisfy({ $0.count == 2 }) else { return nil }
    }
    self.init(rawValue: value)
  }

  public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * (5 - $0))) } }
  public var littleEndianBytes: [UInt8] { bytes.reversed() }

  /// The address `n` above this one, carrying across bytes and wrapping within 48 bits. (The Nordic DFU
  /// bootloader's address is *not* this: it increments the last octet without carry, docs/protocols/nordic-dfu.md §2.2.)
  public func adding(_ n: Int) -> BluetoothAddress {
    BluetoothAddress(rawValue: UInt64(bitPattern: Int64(bitPattern: rawValue) &+ Int64(n)))
  }

  public var description: String { bytes.map { hexByte($0) }.joined(separator: ":") }

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let address = BluetoothAddress(text) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a Bluetooth address (AA:BB:CC:DD:EE:FF)"))
    }
    self = address
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// How a peer's address is to be interpreted on LE links (Core Vol 6 Part B §1.3); the values are
/// BlueZ's `BDADDR_LE_PUBLIC` (1) and `BDADDR_LE_RANDOM` (2) as used in `sockaddr_l2.l2_bdaddr_type`.
/// Public or random (raw values as in `bdaddr_type`: 1 LE public, 2 LE random). In JSON it is the word
/// ("public", "random"), as device records print it; the numbers 1 and 2 are read too.
public enum AddressType: UInt8, Sendable, Codable, CustomStringConvertible {
  case `public` = 1
  case random = 2

  public var description: String { self == .public ? "public" : "random" }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let word = try? container.decode(String.self) {
      switch word {
      case "public": self = .public
      case "random": self = .random
      default:
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "address type \"\(word)\" is not one of: public, random")
      }
    } else {
      let number = try container.decode(UInt8.self)
      guard let type = AddressType(rawValue: number) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "address type \(number) is not 1 (public) or 2 (random)")
      }
      self = type
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// Two upper-case hex digits.
@inlinable
public func hexByte(_ byte: UInt8) -> String {
  let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
  return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
