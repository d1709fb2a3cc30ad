import JSON
import KBeacon

/// Between the KBeacon model (the device JSON, lossless) and the diff engine's flat view.
public enum KBeaconViews {
  public static func view(of config: KBeaconConfiguration) -> DeviceConfigView {
    var view = DeviceConfigView(common: scalars(config.common.fields), isLegacy: config.generation == .legacy)
    guard config.generation == .pro else { return view }
    for slot in config.slots { if let i = slot.fields["slot"]?.intValue { view.slots[i] = scalars(slot.fields) } }
    for trigger in config.triggers {
      if let i = trigger.fields["trIdx"]?.intValue { view.triggers[i] = scalars(trigger.fields) }
    }
    for sensor in config.sensors {
      if let t = sensor.fields["srType"]?.intValue { view.sensors[t] = scalars(sensor.fields) }
    }
    return view
  }

  public static func configuration(of patch: DeviceConfigView) -> KBeaconConfiguration {
    var config = KBeaconConfiguration(generation: patch.isLegacy ? .legacy : .pro)
    config.common = CommonConfig(fields: object(patch.common, identity: []))
    config.slots = patch.slots.sorted { $0.key < $1.key }.map {
      SlotConfig(fields: object($0.value, identity: ["slot", "type"]))
    }
    config.triggers = patch.triggers.sorted { $0.key < $1.key }.map {
      TriggerConfig(fields: object($0.value, identity: ["trIdx", "trType"]))
    }
    config.sensors = patch.sensors.sorted { $0.key < $1.key }.map {
      SensorConfig(fields: object($0.value, identity: ["srType"]))
    }
    return config
  }

  public static func scalars(_ object: JSONObject) -> [String: SettingValue] {
    var result: [String: SettingValue] = [:]
    for (key, value) in object {
      if let s = value.stringValue {
        result[key] = .text(s)
      } else if let i = value.intValue {
        result[key] = .integer(i)
      } else if let d = value.doubleValue {
        result[key] = .number(d)
      }
    }
    return result
  }

  /// Identity keys first (the order the SDK writes them), then the rest sorted, for a stable message.
  public static func object(_ values: [String: SettingValue], identity: [String]) -> JSONObject {
    var object = JSONObject()
    for key in identity + values.keys.filter({ !identity.contains($0) }).sorted() {
      guard let value = values[key] else { continue }
      switch value {
      case .integer(let i): object[key] = .int(i)
      // [I] A device may report a number JSON cannot spell (1e400 parses as infinity); echoed back as an
      // identity key it is left out rather than trapping, and the device judges the entry without it.
      case .number(let d): if d.isFinite { object[key] = .double(d) }
      case .text(let s): object[key] = .string(s)
      }
    }
    return object
  }
}
