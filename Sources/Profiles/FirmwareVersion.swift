/// A firmware version such as KBeacon's `ver` (`"V5.22"`, spec docs/protocols/kbeacon.md §6.3: the SDK strips
/// the first character and parses a number) or a DFU package's application version. Compared numerically
/// component by component: 5.9 < 5.22. A leading `v`/`V` is ignored.
public struct FirmwareVersion: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
  public var components: [Int]

  public init?(_ text: String) {
    var body = Substring(text.trimmingWhitespace)
    if body.first == "v" || body.first == "V" { body = body.dropFirst() }
    let parts = body.split(separator: ".", omittingEmptySubsequences: false)
    guard !parts.isEmpty, parts.count <= 4 else { return nil }
    var numbers: [Int] = []
    for p in parts {
      guard !p.isEmpty, p.count <= 9, p.allSatisfy(\.isASCIIDigitCharacter), let n = Int(p) else { return nil }
      numbers.append(n)
    }
    components = numbers
  }

  public static func < (a: Self, b: Self) -> Bool {
    let n = max(a.components.count, b.components.count)
    let pa = a.components + Array(repeating: 0, count: n - a.components.count)
    let pb = b.components + Array(repeating: 0, count: n - b.components.count)
    return pa.lexicographicallyPrecedes(pb)
  }

  public static func == (a: Self, b: Self) -> Bool { !(a < b) && !(b < a) }
  public func hash(into hasher: inout Hasher) {
    var c = components
    while c.last == 0 { c.removeLast() }
    hasher.combine(c)
  }

  public var description: String { components.map(String.init).joined(separator: ".") }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let v = FirmwareVersion(text) else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad version \(text)"))
    }
    self = v
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(description)
  }
}

/// A set of versions written as comma-separated comparisons: `">=5.20, <6"`, `"=5.22"`, `"<5.30"`.
public struct FirmwareRange: Sendable, Hashable, CustomStringConvertible {
  public enum Comparison: String, Sendable, CaseIterable {
    case ge = ">="
    case le = "<="
    case gt = ">"
    case lt = "<"
    case eq = "="
  }

  struct Clause: Sendable, Hashable {
    var comparison: Comparison
    var version: FirmwareVersion
  }

  var clauses: [Clause]

  public init?(_ text: String) {
    var clauses: [Clause] = []
    for part in text.split(separator: ",") {
      let p = part.trimmingWhitespace
      guard let op = Comparison.allCases.first(where: { p.hasPrefix($0.rawValue) }),
        let version = FirmwareVersion(String(p.dropFirst(op.rawValue.count)))
      else { return nil }
      clauses.append(Clause(comparison: op, version: version))
    }
    guard !clauses.isEmpty else { return nil }
    self.clauses = clauses
  }

  public func contains(_ v: FirmwareVersion) -> Bool {
    clauses.allSatisfy { c in
      switch c.comparison {
      case .ge: v >= c.version
      case .le: v <= c.version
      case .gt: v > c.version
      case .lt: v < c.version
      case .eq: v == c.version
      }
    }
  }

  public var description: String { clauses.map { "\($0.comparison.rawValue)\($0.version)" }.joined(separator: ", ") }
}

extension StringProtocol {
  var trimmingWhitespace: String {
    // Most values (every inventory field) have nothing to trim: an ASCII non-space at both ends answers at
    // once, without walking characters (a third of `profile check`'s time on a 1M-row inventory).
    if let first = first?.asciiValue, let last = last?.asciiValue, Self.isPlainASCII(first), Self.isPlainASCII(last) {
      return String(self)
    }
    return String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }

  /// An ASCII character other than whitespace and control characters.
  private static func isPlainASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
}

extension Character {
  var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
