import JSON

/// One row of the key table: a JSON key, where it lives, what values it takes and whether it can be
/// written (docs/protocols/kbeacon.md §6.3–§6.6, §7). The table is data so profile validation, the simulated
/// device and the CLI share one source of truth. Ranges marked [I] in `note` are our choice where the spec
/// gives none.
public struct ConfigKeySpec: Hashable, Sendable, CustomStringConvertible {
  public var key: String
  public var scope: ConfigScope
  /// The entry types the key belongs to (adv `type`, `trType` or `srType` values); nil = every type.
  public var types: Set<Int>?
  public var kind: ConfigValueKind
  public var access: ConfigAccess
  /// What the key means, from the spec.
  public var summary: String
  /// Source notes, e.g. "[I] range not in spec".
  public var note: String

  public init(
    _ key: String, _ scope: ConfigScope, _ kind: ConfigValueKind, _ access: ConfigAccess,
    types: Set<Int>? = nil, _ summary: String, note: String = ""
  ) {
    self.key = key
    self.scope = scope
    self.types = types
    self.kind = kind
    self.access = access
    self.summary = summary
    self.note = note
  }

  /// A read-write row.
  public init(
    _ key: String, _ scope: ConfigScope, _ kind: ConfigValueKind, types: Set<Int>? = nil, _ summary: String,
    note: String = ""
  ) {
    self.init(key, scope, kind, .readWrite, types: types, summary, note: note)
  }

  public var isWritable: Bool { access != .readOnly }

  /// Nil when `value` is allowed, else the reason it is not.
  public func problem(with value: JSONValue) -> String? { kind.problem(with: value).map { "\(key): \($0)" } }

  public var description: String { "\(scope).\(key) \(kind) \(access)" }
}

/// Which object of the device JSON a key belongs to.
public enum ConfigScope: String, Hashable, Sendable, CaseIterable {
  /// v2 root object (§6.3).
  case common
  /// v2 `advObj` entry (§6.4).
  case slot
  /// v2 `trObj` entry (§6.5).
  case trigger
  /// v2 `srObj` entry (§6.6).
  case sensor
  /// v1 flat object (§7).
  case legacyCommon
  /// v1 `trObj` entry (§7).
  case legacyTrigger
}

public enum ConfigAccess: String, Hashable, Sendable {
  case readOnly = "R"
  case readWrite = "RW"
  case writeOnly = "W"
}

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

extension ConfigValueKind.TextFormat {
  func problem(with s: String) -> String? {
    let hexDigits = Set("0123456789abcdefABCDEF")
    switch self {
    case .any: return nil
    case .uuid:
      let groups = s.split(separator: "-", omittingEmptySubsequences: false)
      let ok = groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(hexDigits.contains) }
      return ok ? nil : "expected a UUID like 7777772E-6B6B-6D63-6E2E-636F6D000001"
    case .hex(let digits):
      let ok = s.hasPrefix("0x") && s.count == digits + 2 && s.dropFirst(2).allSatisfy(hexDigits.contains)
      return ok ? nil : "expected 0x followed by \(digits) hex digits"
    }
  }
}
