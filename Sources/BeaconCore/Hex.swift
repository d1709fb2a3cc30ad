/// Hex text ⇄ bytes, used by the `decode` command, `gatt write`, test vectors and JSON output.
public enum Hex {
  /// Upper-case hex digits, no separators.
  public static func encode(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map(hexByte).joined()
  }

  /// True for the ASCII hex digits `0-9 a-f A-F` only (`Character.isHexDigit` also accepts full-width
  /// digits such as `Ａ`, which no spec'd identifier contains).
  public static func isDigit(_ c: UInt8) -> Bool {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"):
      true
    default: false
    }
  }

  /// Parses hex digits, ignoring spaces, colons, dashes and a leading `0x`. Returns nil on an odd count or
  /// a non-hex character.
  public static func decode(_ text: some StringProtocol) -> [UInt8]? {
    var body = Substring(text)
    if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
    var result: [UInt8] = []
    result.reserveCapacity(body.utf8.count / 2)
    var high: UInt8? = nil
    for c in body.utf8 {
      let nibble: UInt8
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
      case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "\n"), UInt8(ascii: "\t"): continue
      default: return nil
      }
      if let h = high {
        result.append(h << 4 | nibble)
        high = nil
      } else {
        high = nibble
      }
    }
    return high == nil ? result : nil
  }
}
