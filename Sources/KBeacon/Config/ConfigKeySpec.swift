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
