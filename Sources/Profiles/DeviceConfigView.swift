/// A scalar as a KBeacon configuration holds it (docs/protocols/kbeacon.md §6: integers, decimal numbers such as
/// `advPrd`, strings). Integers and numbers compare by value, so `1000` equals `1000.0`.
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
  case integer(Int)
  case number(Double)
  case text(String)

  public static func == (a: Self, b: Self) -> Bool {
    switch (a, b) {
    case (.text(let x), .text(let y)): x == y
    case (.text, _), (_, .text): false
    default: a.numericValue == b.numericValue
    }
  }

  public func hash(into h: inout Hasher) {
    switch self {
    case .text(let s): h.combine(s)
    default: h.combine(numericValue)
    }
  }

  public var numericValue: Double? {
    switch self {
    case .integer(let i): Double(i)
    case .number(let d): d
    case .text: nil
    }
  }

  /// The value as an `Int` when it is a whole number an `Int` can hold; nil for text, fractions and
  /// numbers out of `Int`'s range (a device may report `1e300`), so no conversion can trap.
  public var intValue: Int? { numericValue.flatMap { Int(exactly: $0) } }

  /// The text of a `.text` value (unquoted); nil for numbers.
  public var textValue: String? {
    if case .text(let s) = self { s } else { nil }
  }

  public var description: String {
    switch self {
    case .integer(let i): String(i)
    case .number(let d): FieldSpec.Kind.plain(d)
    case .text(let s): "\"\(s)\""
    }
  }
}

/// A KBeacon configuration in the v2 (KBeacon Pro) shape of a `getPara` answer or a `cfg` message
/// (§6.1–6.2): common keys at the root, slots keyed by `slot`, triggers by `trIdx`, sensors by `srType`.
/// It is both what a device reports and, holding only changed keys, the patch to write.
public struct DeviceConfigView: Sendable, Hashable {
  public var common: [String: SettingValue]
  public var slots: [Int: [String: SettingValue]]
  public var triggers: [Int: [String: SettingValue]]
  public var sensors: [Int: [String: SettingValue]]
  /// A legacy (v1) device: everything is in `common`, flat (§7); see `LegacyTranslation`.
  public var isLegacy = false

  public init(
    common: [String: SettingValue] = [:], slots: [Int: [String: SettingValue]] = [:],
    triggers: [Int: [String: SettingValue]] = [:], sensors: [Int: [String: SettingValue]] = [:], isLegacy: Bool = false
  ) {
    self.isLegacy = isLegacy
    self.common = common
    self.slots = slots
    self.triggers = triggers
    self.sensors = sensors
  }

  public var isEmpty: Bool { common.isEmpty && slots.isEmpty && triggers.isEmpty && sensors.isEmpty }

  /// How many key/value pairs it holds (a patch's size).
  public var keyCount: Int {
    common.count + slots.values.map(\.count).reduce(0, +) + triggers.values.map(\.count).reduce(0, +)
      + sensors.values.map(\.count).reduce(0, +)
  }

  /// Integer-valued common key (`maxSlot`, `minPwr`, `bCap`, …).
  public func int(_ key: String) -> Int? {
    common[key]?.intValue
  }
}

/// Where in a configuration a key lives.
public enum SettingScope: Sendable, Hashable, Comparable, CustomStringConvertible {
  case common
  case slot(Int)
  case trigger(Int)
  case sensor(Int)
  /// A text-stream device's `commands` item, by its place in the profile: its key is the
  /// query, its old value the answer, its new value the set command (`ResolvedTextCommand.change`).
  case command(Int)

  public var description: String {
    switch self {
    case .common: "device"
    case .slot(let i): "slot \(i)"
    case .trigger(let i): "trigger \(i)"
    case .sensor(let t): "sensor \(ProfileFields.sensorTypes.first { $0.1 == t }?.0 ?? String(t))"
    case .command(let i): "command \(i)"
    }
  }
}
