/// How one profile field is written, checked and mapped to a KBeacon v2 configuration key
/// (docs/protocols/kbeacon.md §6.3–6.6). The tables in `ProfileFields` are the single source of truth for the
/// decoder, the static validation, the JSON Schema and the diff's key mapping.
public struct FieldSpec: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    /// An integer in a closed range.
    case integer(ClosedRange<Int>)
    /// A number in a closed range; `scale` multiplies it into device units (e.g. 0.5 °C → 5 tenths).
    case number(ClosedRange<Double>, scale: Double = 1)
    /// true/false, written to the device as 1/0.
    case boolean
    /// Text of at most `maxLength` characters (UTF-8 bytes for `.plain`), in the given format.
    case text(maxLength: Int, format: TextFormat)
    /// One of the names; the device gets the number.
    case choice([(String, Int)])
    /// A list of names whose numbers are ORed into a bitmask.
    case flags([(String, Int)])
    /// A list of names, each switching its own 0/1 device key (KSensor's `ht`, `axis`, …).
    case switches([(String, String)])

    public static func == (a: Kind, b: Kind) -> Bool { a.signature == b.signature }
    public func hash(into h: inout Hasher) { h.combine(signature) }
    var signature: String { "\(self)" }

    /// The allowed range or values, as shown in error messages and the schema's description.
    public var allowed: String {
      switch self {
      case .integer(let r): "\(r.lowerBound)…\(r.upperBound)"
      case .number(let r, _): "\(Self.plain(r.lowerBound))…\(Self.plain(r.upperBound))"
      case .boolean: "true, false"
      case .text(let max, let format): format.allowed(maxLength: max)
      case .choice(let names), .flags(let names): names.map(\.0).joined(separator: ", ")
      case .switches(let names): names.map(\.0).joined(separator: ", ")
      }
    }

    /// A number as an operator reads it: whole numbers without `.0`; anything an `Int` cannot hold exactly
    /// (1e300, infinities from a device's `-1e400`) in `Double`'s own spelling, so no value can trap here.
    public static func plain(_ d: Double) -> String { Int(exactly: d).map { String($0) } ?? String(d) }
  }

  public enum TextFormat: Sendable, Hashable {
    /// Text the device stores as UTF-8 bytes (the name: "≤ 18 chars", docs/protocols/kbeacon.md §6.3). [I] The
    /// limit counts UTF-8 bytes, as the firmware's buffer does, not characters: 18 emoji are 72 bytes or
    /// more and would be cut by the device. C0, DEL and C1 control characters are refused (they would reach
    /// every terminal that shows a scan).
    case plain
    /// `8-4-4-4-12` hex digits.
    case uuid
    /// A number of hex digits, optionally prefixed `0x` (Eddystone namespace 20, instance 12).
    case hex(digits: Int)
    /// A URL the Eddystone-URL encoding can carry in 17 bytes (docs/protocols/beacon-formats.md §2).
    case eddystoneURL
    /// 8–16 characters (KBeacon password, §5).
    case password

    func allowed(maxLength: Int) -> String {
      switch self {
      case .plain:
        "UTF-8 text of at most \(maxLength) bytes — \(maxLength) ASCII characters, fewer accented letters or emoji — "
          + "without control characters"
      case .uuid: "a UUID like E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
      case .hex(let n): "\(n) hex digits, optionally prefixed 0x"
      case .eddystoneURL: "an http(s) URL whose Eddystone encoding fits 17 bytes"
      case .password: "8 to 16 characters"
      }
    }
  }

  /// The key in the profile.
  public var key: String
  /// The KBeacon v2 key it maps to (`nil` for structural keys such as a slot's `type`).
  public var deviceKey: String?
  public var kind: Kind
  /// Whether `{{var}}` templates are allowed in this field.
  public var templatable: Bool
  public var help: String

  public init(_ key: String, _ deviceKey: String?, _ kind: Kind, templatable: Bool = true, help: String) {
    self.key = key
    self.deviceKey = deviceKey
    self.kind = kind
    self.templatable = templatable
    self.help = help
  }
}
