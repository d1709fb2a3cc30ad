import JSON

/// A slot whose advertising type changes (docs/protocols/kbeacon.md §6.4, `KBAdvType`). The firmware keys a slot
/// entry on `slot` and `type` (§6.2), so a slot written with a new type is a new object: the keys the old
/// type happened to share with the profile (period, power, …) are not carried over by anything but the
/// write itself. On a type change the whole slot the profile describes is therefore written, not only the
/// keys that differ (`ConfigDiff.patch`), and a profile that changes a type without the keys that type
/// needs is refused for that device, pointing at the slot's `type` in the profile.
///
/// [I] The keys a type needs are its per-type keys of §6.4 that the profile can set: iBeacon `uuid`,
/// `majorID`, `minorID`; Eddystone UID `nid`, `sid`; Eddystone URL `url`. KSensor's include flags, TLM,
/// System and off need none. A slot the device does not report counts as a change from off; a `type` the
/// device reports that is no whole number an `Int` holds (`1e400` parses as infinity) is a type no profile
/// sets, so the slot changes type (it trapped in the conversion: found by fuzz-device-answer).
public enum SlotTypeChange {
  /// The slots whose `type` the desired view sets to something other than what the device has.
  public static func changedSlots(desired: DeviceConfigView, actual: DeviceConfigView) -> [Int] {
    guard !actual.isLegacy else { return [] }
    return desired.slots.compactMap { index, slot -> Int? in
      guard let type = slot["type"]?.intValue else { return nil }
      return type == reportedType(actual, index) ? nil : index
    }.sorted()
  }

  /// The slot's type as the device reports it: 0 (off) when it reports no such slot, nil when its `type` is
  /// no whole number.
  static func reportedType(_ actual: DeviceConfigView, _ index: Int) -> Int? {
    guard let reported = actual.slots[index]?["type"] else { return 0 }
    return reported.intValue
  }

  /// The profile's fields a slot of this type must carry (see the type's doc comment).
  public static func requiredFields(type: Int) -> [FieldSpec] {
    guard let name = ProfileFields.slotTypes.first(where: { $0.1 == type })?.0 else { return [] }
    return (ProfileFields.slotByType[name] ?? []).filter { $0.deviceKey != nil }
  }

  /// One line per slot whose type changes without the keys the new type needs, each starting with where
  /// the profile sets the type (`site.json:9:30: $.desired.slots[0].type: …`).
  public static func problems(profile: Profile, desired: DeviceConfigView, actual: DeviceConfigView) -> [String] {
    changedSlots(desired: desired, actual: actual).compactMap { index -> String? in
      guard let slot = desired.slots[index], let type = slot["type"]?.intValue else { return nil }
      let missing = requiredFields(type: type).filter { slot[$0.deviceKey ?? ""] == nil }
      guard !missing.isEmpty else { return nil }
      let names = ProfileFields.slotTypes
      let from = reportedType(actual, index)
      let fromName =
        from.flatMap { f in names.first { $0.1 == f }?.0 }
        ?? "type \(from.map(String.init) ?? actual.slots[index]?["type"]?.description ?? "?")"
      let toName = names.first { $0.1 == type }?.0 ?? "type \(type)"
      let field = profile.desired.slots[index]?["type"]
      let location = JSONDiagnostic(
        file: profile.file, position: field?.position,
        path: field?.path ?? JSONPath.root.appending("desired").appending("slots"),
        message: "slot \(index) changes from \(fromName) to \(toName) on this device, and a new \(toName) slot needs "
          + requiredFields(type: type).map(\.key).joined(separator: ", ") + "; the profile does not set "
          + missing.map(\.key).joined(separator: ", "))
      return location.description
    }
  }
}
