import JSON

/// The values a key accepts.
public enum ConfigValueKind: Hashable, Sendable, CustomStringConvertible {
  /// An integer in the range.
  case integer(ClosedRange<Int>)
  /// A number (integer or fraction) in the range.
  case number(ClosedRange<Double>)
  /// 0 or 1 (`true`/`false` are accepted on read and written back as 0/1).
  case flag
  /// One of these integers.
  case choice([Int])
  /// Any OR of the bits in the mask.
  case bitmask(Int)
  /// A string with this many characters and format.
  case text(ClosedRange<Int>, TextFormat)

  public enum TextFormat: Hashable, Sendable {
    case any
    /// `8-4-4-4-12` hex digits.
    case uuid
    /// `0x` followed by exactly this many hex digits.
    case hex(digits: Int)
  }

  public func problem(with value: JSONValue) -> String? {
    switch self {
    case .integer(let range):
      guard let i = value.intValue else { return "expected an integer" }
      return range.contains(i) ? nil : "\(i) is outside \(range.lowerBound)...\(range.upperBound)"
    case .number(let range):
      guard let d = value.doubleValue else { return "expected a number" }
      return range.contains(d) ? nil : "\(d) is outside \(range.lowerBound)...\(range.upperBound)"
    case .flag:
      if case .bool = value { return nil }
      return value.intValue == 0 || value.intValue == 1 ? nil : "expected 0 or 1"
    case .choice(let allowed):
      guard let i = value.intValue else { return "expected an integer" }
      return allowed.contains(i) ? nil : "\(i) is not one of \(allowed.map(String.init).joined(separator: ", "))"
    case .bitmask(let mask):
      guard let i = value.intValue, i >= 0 else { return "expected a non-negative integer" }
      return i & ~mask == 0 ? nil : "bits 0x\(String(i & ~mask, radix: 16)) are not defined"
    case .text(let length, let format):
      guard let s = value.stringValue else { return "expected a string" }
      guard length.contains(s.count) else {
        return "length \(s.count) is outside \(length.lowerBound)...\(length.upperBound)"
      }
      return format.problem(with: s)
    }
  }

  public var description: String {
    switch self {
    case .integer(let r): "integer \(r.lowerBound)...\(r.upperBound)"
    case .number(let r): "number \(r.lowerBound)...\(r.upperBound)"
    case .flag: "0|1"
    case .choice(let c): "one of \(c.map(String.init).joined(separator: ","))"
    case .bitmask(let m): "bitmask 0x\(String(m, radix: 16))"
    case .text(let r, .any): "string of \(r.lowerBound)...\(r.upperBound) characters"
    case .text(_, .uuid): "UUID 8-4-4-4-12"
    case .text(_, .hex(let n)): "0x + \(n) hex digits"
    }
  }
}
