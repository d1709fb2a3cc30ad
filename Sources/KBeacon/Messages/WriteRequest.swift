import JSON

/// A `cfg` write (docs/protocols/kbeacon.md §6.2 for v2, §7 for v1), built from a partial configuration that
/// holds only the keys to change.
public enum WriteRequest {
  /// v2: `{"msg":"cfg", <root keys>, "advObj":[…], "trObj":[…], "srObj":[…]}` — arrays only when non-empty.
  /// v1: `{"msg":"cfg","stype":mask, <flat keys>}` plus `trObj` when triggers are written.
  ///
  /// Checks the SDK rules of §6.2 (`checkConfigValid`) and the key table before anything is sent:
  /// every slot carries `slot` and `type`; a trigger with the advertise action carries `slot`; values are
  /// in range; read-only keys are not written. `minPwr`/`maxPwr` and capabilities need the device's
  /// common config (`device`), when given.
  public static func json(for changes: KBeaconConfiguration, device: CommonConfig? = nil) throws(KBeaconError)
    -> JSONObject
  {
    try validate(changes, device: device)
    var root: JSONObject = ["msg": .string("cfg")]
    if changes.generation == .legacy { root["stype"] = .int(legacySections(of: changes).rawValue) }
    for (key, value) in changes.deviceJSON where key != "msg" { root[key] = value }
    guard root.count > (changes.generation == .legacy ? 2 : 1) else { throw .noParameters }
    return root
  }

  public static func bytes(for changes: KBeaconConfiguration, device: CommonConfig? = nil) throws(KBeaconError)
    -> [UInt8]
  {
    JSONWriter.bytes(.object(try json(for: changes, device: device)))
  }

  static func validate(_ c: KBeaconConfiguration, device: CommonConfig?) throws(KBeaconError) {
    for item in c.flattened() {
      guard let path = ConfigPath(item.path), let row = c.spec(for: path) else { continue }
      if !row.isWritable { throw .inputInvalid("\(item.path) is read-only") }
      if let problem = row.problem(with: item.value) { throw .inputInvalid("\(item.path) — \(problem)") }
    }
    guard c.generation == .pro else { return }
    for slot in c.slots {
      guard slot.index != nil, slot.fields["type"] != nil else {
        throw .inputInvalid("every advObj entry needs slot and type")
      }
      if let device, let tx = slot[SlotKey.txPwr] {
        let low = device[CommonKey.minPwr] ?? -40
        let high = device[CommonKey.maxPwr] ?? 8
        guard (low...high).contains(tx) else {
          throw .inputInvalid("advObj[\(slot.index!)].txPwr \(tx) is outside \(low)...\(high)")
        }
      }
      if let device, let mode = slot[SlotKey.mode] {
        let caps = device.capabilities
        if mode == .longRange, !caps.contains(.longRange) { throw .notSupported("long-range advertising") }
        if mode == .extended, !caps.contains(.extendedAdvertising) { throw .notSupported("extended advertising") }
      }
    }
    for trigger in c.triggers {
      guard trigger.index != nil else { throw .inputInvalid("every trObj entry needs trIdx") }
      if trigger.actions.contains(.advertise), trigger[TriggerKey.slot] == nil {
        throw .inputInvalid("trObj[\(trigger.index!)] advertises but names no slot")
      }
    }
  }

  /// The v1 `stype` bits touched by a flat write: each key's block, plus 0x40 for `trObj`.
  static func legacySections(of c: KBeaconConfiguration) -> LegacySections {
    var s = c.common.fields.keys.reduce(into: LegacySections()) { $0.formUnion(.block(ofKey: $1)) }
    if !c.triggers.isEmpty { s.insert(.trigger) }
    return s
  }
}
