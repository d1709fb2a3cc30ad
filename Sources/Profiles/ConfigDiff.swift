import BeaconCore

/// One difference between what a device has and what the profile wants.
public struct ConfigChange: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var scope: SettingScope
  /// The device key (`majorID`, `advPrd`, …).
  public var key: String
  /// What the device has now (nil: the key is absent, e.g. a slot that is not configured).
  public var old: SettingValue?
  public var new: SettingValue

  public init(scope: SettingScope, key: String, old: SettingValue?, new: SettingValue) {
    self.scope = scope
    self.key = key
    self.old = old
    self.new = new
  }

  public static func < (a: Self, b: Self) -> Bool { (a.scope, a.key) < (b.scope, b.key) }

  /// `slot 0 majorID: 1 -> 7`; a key whose values are named choices or named flags shows the names too,
  /// `slot 0 type: ksensor (1) -> ibeacon (5)`, `trigger 0 trAct: (unset) -> advertise, record (5)`.
  /// A text command reads `command 0 AT+NAME?: answered "+NAME:NUS_0001 | OK" -> send "AT+NAME=Lobby"`.
  public var description: String {
    if case .command = scope { return "\(scope) \(key): answered \(render(old)) -> send \(render(new))" }
    return "\(scope) \(key): \(render(old)) -> \(render(new))"
  }

  private func render(_ value: SettingValue?) -> String {
    guard let value else { return "(unset)" }
    guard case .integer(let number) = value, let name = Self.choiceName(number, key: key, scope: scope) else {
      return value.description
    }
    return "\(name) (\(number))"
  }

  /// The profile's name for `number` when the device key is a choice in its scope, or its flags' names
  /// when it is a bitmask of named flags (ProfileFields).
  static func choiceName(_ number: Int, key: String, scope: SettingScope) -> String? {
    let specs: [FieldSpec] =
      switch scope {
      case .common: ProfileFields.common
      case .slot: ProfileFields.slotBase + ProfileFields.slotByType.values.flatMap { $0 }
      case .trigger: ProfileFields.trigger
      case .sensor: ProfileFields.sensor
      case .command: []
      }
    for spec in specs where spec.deviceKey == key {
      if case .choice(let options) = spec.kind, let option = options.first(where: { $0.1 == number }) {
        return option.0
      }
      // A bitmask of named flags (trigger actions): every set bit by its name, when each has one.
      if case .flags(let options) = spec.kind {
        let named = options.filter { number & $0.1 != 0 }
        guard named.reduce(0, { $0 | $1.1 }) == number else { return nil }
        return named.isEmpty ? "none" : named.map(\.0).joined(separator: ", ")
      }
    }
    return nil
  }
}

/// The diff engine: compares a device's wanted configuration with the one read back, yielding the changes
/// and the smallest `cfg` patch (docs/protocols/kbeacon.md §6.2: only changed keys need to be sent; a slot entry
/// always carries `slot` and `type`, a trigger entry `trIdx` and `trType`, a sensor entry `srType`; a slot
/// whose type changes carries every key the profile gives it, see `SlotTypeChange`).
/// Text keys holding UUIDs and Eddystone ids compare without regard to case.
public enum ConfigDiff {
  public static func changes(desired: DeviceConfigView, actual: DeviceConfigView) -> [ConfigChange] {
    var changes: [ConfigChange] = []
    func compare(_ scope: SettingScope, _ want: [String: SettingValue], _ have: [String: SettingValue]?) {
      for (key, value) in want where !same(value, have?[key]) {
        changes.append(ConfigChange(scope: scope, key: key, old: have?[key], new: value))
      }
    }
    compare(.common, desired.common, actual.common)
    for (i, want) in desired.slots { compare(.slot(i), want, actual.slots[i]) }
    for (i, want) in desired.triggers { compare(.trigger(i), want, actual.triggers[i]) }
    for (t, want) in desired.sensors { compare(.sensor(t), want, actual.sensors[t]) }
    return changes.sorted()
  }

  static func same(_ a: SettingValue, _ b: SettingValue?) -> Bool {
    guard let b else { return false }
    if case .text(let x) = a, case .text(let y) = b, looksLikeIdentifier(x) { return x.lowercased() == y.lowercased() }
    return a == b
  }

  /// UUIDs and `0x…` ids: ASCII hex digits and dashes only (a full-width `０xＡＢ` is a name, compared exactly).
  static func looksLikeIdentifier(_ s: String) -> Bool {
    let body = s.utf8.dropFirst(s.hasPrefix("0x") ? 2 : 0)
    return (s.utf8.count == 36 || s.hasPrefix("0x")) && body.allSatisfy { Hex.isDigit($0) || $0 == UInt8(ascii: "-") }
  }

  /// The patch holding only changed keys, plus each entry's identifying keys.
  public static func patch(_ changes: [ConfigChange], desired: DeviceConfigView, actual: DeviceConfigView)
    -> DeviceConfigView
  {
    var patch = DeviceConfigView()
    for c in changes {
      switch c.scope {
      case .common: patch.common[c.key] = c.new
      case .slot(let i):
        patch.slots[i, default: ["slot": .integer(i)]][c.key] = c.new
        patch.slots[i]?["type"] = desired.slots[i]?["type"] ?? actual.slots[i]?["type"]
      case .trigger(let i):
        patch.triggers[i, default: ["trIdx": .integer(i)]][c.key] = c.new
        patch.triggers[i]?["trType"] = desired.triggers[i]?["trType"] ?? actual.triggers[i]?["trType"]
      case .sensor(let t):
        patch.sensors[t, default: ["srType": .integer(t)]][c.key] = c.new
      case .command:
        break  // not a KBeacon key: text commands are sent one by one (TextCommandWork)
      }
    }
    // A slot whose type changes is written whole: every key the profile gives it (SlotTypeChange).
    for i in SlotTypeChange.changedSlots(desired: desired, actual: actual) {
      patch.slots[i, default: [:]].merge(desired.slots[i] ?? [:]) { _, wanted in wanted }
      patch.slots[i]?["slot"] = .integer(i)
    }
    return patch
  }
}
