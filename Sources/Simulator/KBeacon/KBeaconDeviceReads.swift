import JSON
import KBeacon

/// How a simulated KBeacon answers `getPara` (docs/protocols/kbeacon.md §6.1 v2, §7 v1). Selectors the device
/// does not understand get cause 0x103, as a real KBeacon Pro answers a v1 `stype` read (§1, HAR) [C3].
enum KBeaconDeviceReads {
  static func response(to request: JSONObject, config: KBeaconConfiguration) -> Result<JSONObject, DeviceCause> {
    config.generation == .pro ? pro(request, config) : legacy(request, config)
  }

  private static func pro(_ request: JSONObject, _ config: KBeaconConfiguration) -> Result<JSONObject, DeviceCause> {
    guard request["stype"] == nil, let mask = request["type"]?.intValue, mask > 0, mask & ~0xF == 0 else {
      return .failure(.invalidParameter)
    }
    let sections = ConfigSections(rawValue: mask)
    var out = KBeaconConfiguration(generation: .pro)
    if sections.contains(.common) {
      out.common = config.common
      out.common.fields["pwd"] = nil
    }
    if sections.contains(.slots) {
      let slot = request["slot"]?.intValue
      out.slots = config.slots.filter { slot == nil || $0.index == slot }
    }
    if sections.contains(.triggers) {
      let type = request["trType"]?.intValue
      out.triggers = config.triggers.filter { type == nil || $0.fields["trType"]?.intValue == type }
    }
    if sections.contains(.sensors) {
      let type = request["srType"]?.intValue
      out.sensors = config.sensors.filter { type == nil || $0.identity == type }
    }
    return .success(out.deviceJSON)
  }

  private static func legacy(_ request: JSONObject, _ config: KBeaconConfiguration) -> Result<JSONObject, DeviceCause> {
    guard let mask = request["stype"]?.intValue, mask > 0, mask & ~0x77 == 0 else { return .failure(.invalidParameter) }
    let sections = LegacySections(rawValue: mask)
    var out = JSONObject()
    for (key, value) in config.common.fields where key != "pwd" && sections.contains(.block(ofKey: key)) {
      out[key] = value
    }
    if sections.contains(.trigger) {
      // A v1 trigger read must name the trigger type (§7; HAR: omission yields a bare error ack).
      guard let type = request["trType"]?.intValue else { return .failure(.invalidParameter) }
      let triggers = config.triggers.filter { $0.fields["trType"]?.intValue == type }
      guard !triggers.isEmpty else { return .failure(.triggerNotSupported) }
      out["trObj"] = .array(triggers.map { .object($0.fields) })
    }
    return .success(out)
  }
}
