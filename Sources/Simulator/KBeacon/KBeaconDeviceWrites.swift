import JSON
import KBeacon

/// How a simulated KBeacon checks and applies a `cfg` message (docs/protocols/kbeacon.md §6.2, §6.4–§6.6, §7,
/// causes of §12). A write is all or nothing: the first broken rule answers its cause and nothing changes.
/// Keys the spec does not know are stored as given (a newer app may know more than this table) [I].
enum KBeaconDeviceWrites {
  struct Outcome {
    var configuration: KBeaconConfiguration
    var newPassword: String?
  }

  static func apply(_ message: JSONObject, to current: KBeaconConfiguration, profile: KBeaconDeviceProfile) -> Result<
    Outcome, DeviceCause
  > {
    var body = message
    body["msg"] = nil
    if current.generation == .legacy { body["stype"] = nil }
    let changes: KBeaconConfiguration
    do {
      changes = try KBeaconConfiguration(deviceJSON: body, generation: current.generation)
    } catch {
      return .failure(.jsonParseFailed)
    }
    if let cause = check(changes, against: current, profile: profile) { return .failure(cause) }
    var next = current
    var password: String?
    if let pwd = changes.common.fields["pwd"]?.stringValue {
      password = pwd
      var withoutPassword = changes
      withoutPassword.common.fields["pwd"] = nil
      next.merge(withoutPassword)
    } else {
      next.merge(changes)
    }
    if let cause = checkWhole(next, profile: profile) { return .failure(cause) }
    return .success(Outcome(configuration: next, newPassword: password))
  }

  /// Per-key checks: writable, in range, within the device's capabilities.
  private static func check(
    _ c: KBeaconConfiguration, against current: KBeaconConfiguration, profile: KBeaconDeviceProfile
  )
    -> DeviceCause?
  {
    let commonScope: ConfigScope = c.generation == .pro ? .common : .legacyCommon
    for (key, value) in c.common.fields {
      if let cause = checkKey(key, value, scope: commonScope, type: nil) { return cause }
    }
    if c.generation == .legacy, let tx = c.common[LegacyKey.txPwr], !(profile.minPower...profile.maxPower).contains(tx)
    {
      return .invalidParameter
    }
    for slot in c.slots {
      guard let index = slot.index, index < profile.maxSlot else { return .invalidParameter }
      let type = slot.fields["type"]?.intValue ?? current.slot(index)?.fields["type"]?.intValue
      for (key, value) in slot.fields { if let cause = checkKey(key, value, scope: .slot, type: type) { return cause } }
      if let t = slot.advType, t != .disabled, !profile.capabilities.contains(.advType(t)) {
        return .featureUnsupported
      }
      if let tx = slot[SlotKey.txPwr], !(profile.minPower...profile.maxPower).contains(tx) { return .invalidParameter }
      if slot[SlotKey.mode] == .longRange, !profile.capabilities.contains(.longRange) { return .featureUnsupported }
      if slot[SlotKey.mode] == .extended, !profile.capabilities.contains(.extendedAdvertising) {
        return .featureUnsupported
      }
      if slot[SlotKey.conn] == false, !profile.allowsNonConnectable { return .featureUnsupported }
      if slot.fields["chMsk"] != nil, !profile.capabilities.contains(.advChannelMask) { return .featureUnsupported }
    }
    for trigger in c.triggers {
      let scope: ConfigScope = c.generation == .pro ? .trigger : .legacyTrigger
      let type = trigger.fields["trType"]?.intValue
      if c.generation == .pro {
        guard let index = trigger.index, index < profile.maxTriggers else { return .invalidParameter }
        let effectiveType = type ?? current.trigger(index)?.fields["trType"]?.intValue
        for (key, value) in trigger.fields {
          if let cause = checkKey(key, value, scope: scope, type: effectiveType) { return cause }
        }
        if let t = trigger.triggerType, !TriggerConfig.isSupported(t, triggerCapability: profile.triggerCapability) {
          return .triggerNotSupported
        }
      } else {
        guard let type, profile.triggerCapability & type != 0 else { return .triggerNotSupported }
        for (key, value) in trigger.fields {
          if let cause = checkKey(key, value, scope: scope, type: type) { return cause }
        }
      }
    }
    for sensor in c.sensors {
      guard let type = sensor.identity else { return .missingParameter }
      guard current.sensors.contains(where: { $0.identity == type }) else { return .sensorNotSupported }
      for (key, value) in sensor.fields {
        if let cause = checkKey(key, value, scope: .sensor, type: type) { return cause }
      }
    }
    return nil
  }

  private static func checkKey(_ key: String, _ value: JSONValue, scope: ConfigScope, type: Int?) -> DeviceCause? {
    guard let row = KeyTable.spec(for: key, in: scope, type: type) else { return nil }
    if !row.isWritable { return .invalidParameter }
    return row.problem(with: value) == nil ? nil : .invalidParameter
  }

  /// Rules over the merged configuration (v2): an advertising trigger's slot exists and is enabled (0x108),
  /// a disabled slot is not used by a trigger (0x109), TLM and System advertise once (0x10A) [I], a trigger
  /// type is enabled at one index only (0x10B).
  private static func checkWhole(_ c: KBeaconConfiguration, profile: KBeaconDeviceProfile) -> DeviceCause? {
    guard c.generation == .pro else { return nil }
    var enabledTypes: [Int] = []
    for trigger in c.triggers {
      guard let type = trigger.triggerType, type != .disabled else { continue }
      if enabledTypes.contains(type.rawValue) { return .triggerTypeAlreadyEnabled }
      enabledTypes.append(type.rawValue)
      if trigger.actions.contains(.advertise) {
        guard let slotIndex = trigger[TriggerKey.slot] else { return .missingParameter }
        guard let slot = c.slot(slotIndex), slot.advType != .disabled else {
          return c.slot(slotIndex) == nil ? .triggerSlotMissing : .slotUsedByTrigger
        }
      }
    }
    for unique in [AdvType.eddystoneTLM, .system] where c.slots.filter({ $0.advType == unique }).count > 1 {
      return .advTypeAlreadyUsed
    }
    return nil
  }
}
