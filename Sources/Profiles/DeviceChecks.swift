/// The checks only a read-back can make: the device's own limits and capabilities (docs/protocols/kbeacon.md
/// §6.3 `maxSlot`, `maxTg`, `minPwr`/`maxPwr`, `maxPrd`, `bCap`, `trCap`). A failure fails that device with
/// a clear reason; the run goes on with the others.
///
/// [I] `maxSlot` and `maxTg` are read as counts (5 ⇒ indices 0–4), as the SDK's defaults suggest; a device
/// that reports neither is not limited here (the device's own 0x103 answer still protects it).
///
/// Lock-out guard (§6.4 `conn`): a KBeacon Pro none of whose advertising slots is connectable can be
/// reached again only after a button press or a power cycle, so a change that leaves it so is refused
/// unless the profile says `allowUnreachable` [I: refused, not warned — a fleet tool that locks itself
/// out needs someone at every beacon]. Judged on the slots after the change (the desired keys over the
/// read-back ones) and only when the change touches a slot's `type` or `conn`; v1 devices (`advFlag`) are
/// not judged.
public enum DeviceChecks {
  public static func problems(desired: DeviceConfigView, actual: DeviceConfigView, allowUnreachable: Bool = false)
    -> [String]
  {
    var problems: [String] = []
    if !allowUnreachable, !actual.isLegacy, let lockout = lockout(desired: desired, actual: actual) {
      problems.append(lockout)
    }
    let minPower = actual.int("minPwr")
    let maxPower = actual.int("maxPwr")
    func checkPower(_ value: SettingValue?, _ what: String) {
      guard let p = value?.intValue else { return }
      if let minPower, p < minPower {
        problems.append("\(what) tx power \(p) dBm is below this device's minimum \(minPower) dBm")
      }
      if let maxPower, p > maxPower {
        problems.append("\(what) tx power \(p) dBm is above this device's maximum \(maxPower) dBm")
      }
    }
    // v1 capability bits are laid out differently (§7): only the power bounds apply to legacy devices.
    let basic = actual.isLegacy ? nil : actual.int("bCap")
    for (i, slot) in desired.slots.sorted(by: { $0.key < $1.key }) {
      if let count = actual.int("maxSlot"), i >= count {
        problems.append("slot \(i) does not exist: this device has \(count) slots (\(indices(count)))")
      }
      checkPower(slot["txPwr"], "slot \(i)")
      if let maxPeriod = actual.common["maxPrd"]?.numericValue, let period = slot["advPrd"]?.numericValue,
        period > maxPeriod
      {
        problems.append(
          "slot \(i) interval \(FieldSpec.Kind.plain(period)) ms is above this device's maximum \(FieldSpec.Kind.plain(maxPeriod)) ms"
        )
      }
      if let basic, let type = slot["type"]?.intValue, type > 0, (basic >> 8) & 0xFF != 0,
        (basic >> 8) & (1 << (type - 1)) == 0
      {
        problems.append("slot \(i): this device cannot advertise \(name(type, ProfileFields.slotTypes)) frames")
      }
      if let basic, let mode = slot["mode"]?.intValue {
        if mode == 1, basic & 0x20000 == 0 {
          problems.append("slot \(i): this device has no long-range (Coded PHY) mode")
        }
        if mode == 2, basic & 0x40000 == 0 {
          problems.append("slot \(i): this device has no extended advertising mode")
        }
      }
      if let basic {
        for (key, bit, what) in [
          ("ht", 0x8, "temperature/humidity"), ("lux", 0x40, "light"), ("pir", 0x20, "PIR"), ("voc", 0x80, "VOC"),
          ("co2", 0x1000000, "CO2"), ("axis", 0x4, "accelerometer"),
        ]
        where slot[key] == .integer(1) && basic & bit == 0 {
          problems.append("slot \(i): this device has no \(what) sensor to include in KSensor frames")
        }
      }
    }
    let triggerCaps = actual.isLegacy ? nil : actual.int("trCap")
    for (i, trigger) in desired.triggers.sorted(by: { $0.key < $1.key }) {
      if let count = actual.int("maxTg"), i >= count {
        problems.append("trigger \(i) does not exist: this device has \(count) triggers (\(indices(count)))")
      }
      if let triggerCaps, let type = trigger["trType"]?.intValue, type > 0, triggerCaps & (1 << (type - 1)) == 0 {
        problems.append("trigger \(i): this device does not support \(name(type, ProfileFields.triggerTypes)) triggers")
      }
      checkPower(trigger["trAPwr"], "trigger \(i)")
    }
    return problems
  }

  /// The lock-out problem (see the type's doc comment), or nil.
  static func lockout(desired: DeviceConfigView, actual: DeviceConfigView) -> String? {
    let touched = desired.slots.values.contains { $0["type"] != nil || $0["conn"] != nil }
    guard touched else { return nil }
    let indices = Set(desired.slots.keys).union(actual.slots.keys)
    let advertising = indices.compactMap { i -> Bool? in
      let type = desired.slots[i]?["type"] ?? actual.slots[i]?["type"]
      guard let type = type?.numericValue, type > 0 else { return nil }
      let conn = desired.slots[i]?["conn"] ?? actual.slots[i]?["conn"]
      return (conn?.numericValue ?? 1) != 0
    }
    guard !advertising.contains(true) else { return nil }
    let what = advertising.isEmpty ? "no slot would advertise" : "no advertising slot would be connectable"
    return "after this change \(what), so the device could be reconfigured only after a button press or a power cycle; "
      + "set \"allowUnreachable\": true in the profile to do it anyway"
  }

  /// The valid indices for a count the device reports ("0…4" for 5). A device may report anything, even
  /// `Int.min`, so a count below 1 gives "none" instead of computing `count - 1`.
  static func indices(_ count: Int) -> String { count > 0 ? "0…\(count - 1)" : "none" }

  static func name(_ value: Int, _ table: [(String, Int)]) -> String {
    table.first { $0.1 == value }?.0 ?? "type \(value)"
  }
}
