/// Planning for legacy (v1) KBeacons, whose configuration is one flat object (docs/protocols/kbeacon.md §7):
/// one global `type` bitmask of enabled frames instead of slots, one `advPrd` and `txPwr` for all of
/// them, `devName` instead of `name`, and `advFlag` bits for connectable (0x1) and auto power-on (0x4).
///
/// A profile written for slots is translated when it can be expressed: each desired slot's type becomes a
/// bit of `type`, its type-specific keys map 1:1, and the base keys must agree across slots.
/// [I] choices: `system` frames and long-range/extended modes have no v1 form, and v1 triggers and sensors
/// use other enums (§7), so profiles with triggers or sensors fail legacy devices with that reason rather
/// than guessing; disabled slots (`off`) clear their type's bit.
public enum LegacyTranslation {
  /// v2 adv type (§6.4) → v1 frame bit (§7).
  public static let typeBits: [Int: Int] = [1: 0x1, 2: 0x2, 5: 0x4, 3: 0x8, 4: 0x10]

  public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public var description: String { "legacy KBeacon: \(reason)" }
  }

  /// The flat v1 keys the profile wants, given what the device has (for the bits of `type` and `advFlag`
  /// the profile does not manage).
  public static func desiredFlat(_ desired: DeviceConfigView, actual: [String: SettingValue]) -> Result<
    [String: SettingValue], Failure
  > {
    if !desired.triggers.isEmpty {
      return .failure(Failure(reason: "profile triggers apply to KBeacon Pro (v2) devices only"))
    }
    if !desired.sensors.isEmpty {
      return .failure(Failure(reason: "profile sensors apply to KBeacon Pro (v2) devices only"))
    }
    var flat: [String: SettingValue] = [:]
    for (v2, v1) in [("name", "devName"), ("meaPwr", "meaPwr")] { if let v = desired.common[v2] { flat[v1] = v } }
    var flags = int(actual["advFlag"]) ?? 0
    if let on = int(desired.common["atPwr"]) { flags = on == 1 ? flags | 0x4 : flags & ~0x4 }

    var typeMask = int(actual["type"]) ?? 0
    var shared: [String: (SettingValue, Int)] = [:]
    for (index, slot) in desired.slots.sorted(by: { $0.key < $1.key }) {
      guard let type = int(slot["type"]) else { continue }
      if type == 0 { continue }  // v1 has no slots: an `off` slot names no frame to clear [I].
      guard let bit = typeBits[type] else {
        return .failure(
          Failure(
            reason:
              "slot \(index): \(ProfileFields.slotTypes.first { $0.1 == type }?.0 ?? "type \(type)") frames do not exist on this generation"
          ))
      }
      typeMask |= bit
      if let mode = int(slot["mode"]), mode != 0 {
        return .failure(Failure(reason: "slot \(index): only legacy advertising mode exists on this generation"))
      }
      if int(slot["trAdv"]) == 1 {
        return .failure(Failure(reason: "slot \(index): trigger-only advertising needs a KBeacon Pro"))
      }
      for (key, value) in slot where !["slot", "type", "mode", "trAdv"].contains(key) {
        let target = key == "conn" ? "advFlag" : key
        if ["advPrd", "txPwr", "conn"].contains(key) {
          if let (other, otherIndex) = shared[key], other != value {
            return .failure(
              Failure(
                reason:
                  "slots \(otherIndex) and \(index) differ in \(key), but this generation has one \(key) for all frames"
              ))
          }
          shared[key] = (value, index)
        }
        if target == "advFlag" {
          flags = int(value) == 1 ? flags | 0x1 : flags & ~0x1
        } else if ["ht", "axis", "lux", "pir", "voc", "co2", "mag", "rcd"].contains(key) {
          continue  // v1 KSensor content is set by the sensor block, not per frame [I].
        } else {
          flat[target] = value
        }
      }
    }
    if desired.slots.values.contains(where: { int($0["type"]) != nil }) { flat["type"] = .integer(typeMask) }
    if desired.common["atPwr"] != nil || desired.slots.values.contains(where: { $0["conn"] != nil }) {
      flat["advFlag"] = .integer(flags)
    }
    return .success(flat)
  }

  static func int(_ v: SettingValue?) -> Int? { v?.numericValue.flatMap { Int(exactly: $0) } }
}
