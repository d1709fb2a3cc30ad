import FuzzSupport
import KBeacon
import Profiles

// A device's `getPara` answer (arbitrary bytes, either generation) through `plan`'s path, as a visit takes
// it (Fleet's ApplyCampaign+Visit): the configuration model, its flat view (KBeaconViews, mirrored below:
// Fleet itself is not built for fuzzing), the selection's model/firmware rejection, DeviceChecks,
// SlotTypeChange, the v1 translation, ConfigDiff against that non-empty device config, the patch, the cfg
// it becomes, and the read-back comparison — against desired states decoded from fixed profiles that touch
// common keys, slots of every type, triggers and sensors (hostile-input review: last round's overflows were here and no
// target reached them).
let profiles = [
  #"""
  {"version": 1, "select": {"models": ["KBPro*"], "firmware": ">=5.0"}, "desired": {"name": "Lobby-{{address_hex}}", "measuredPower": -59,
  "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 9, "intervalMs": 760},
  {"slot": 1, "type": "eddystone-url", "url": "https://example.com/a", "intervalMs": 1022.5},
  {"slot": 2, "type": "eddystone-uid", "namespace": "EDD1EBEAC04E5DEFA017", "instance": "000000000001"}]}}
  """#,
  #"""
  {"version": 1, "allowUnreachable": true, "desired": {"slots": [{"slot": 0, "type": "off"}, {"slot": 4, "type": "ksensor", "intervalMs": 100}],
  "triggers": [{"index": 0, "type": "button-single-click", "actions": ["advertise"], "slot": 4}],
  "sensors": [{"type": "temperature-humidity", "logIntervalS": 60}]}}
  """#,
  #"""
  {"version": 1, "desired": {"name": "KB_{{address_hex}}", "slots": [{"slot": 0, "type": "eddystone-tlm", "intervalMs": 10000}]}}
  """#,
]
let urlCheck: FieldCheck.URLCheck = { _ in nil }
let desiredStates: [(Profile, DeviceConfigView)] = profiles.map { text in
  let profile: Profile
  do { profile = try ProfileDecoder.decode(Array(text.utf8), file: "p.json", urlCheck: urlCheck) } catch {
    Fuzzer.fail("a fixed profile does not decode: \(error)", [])
  }
  switch DesiredResolver(urlCheck: urlCheck).resolve(
    profile.desired, TemplateVariables(address: "DD:34:02:06:D1:01", index: 3))
  {
  case .success(let desired): return (profile, desired)
  case .failure(let failure): Fuzzer.fail("a fixed profile does not resolve: \(failure)", [])
  }
}

func scalars(_ object: JSONObject) -> [String: SettingValue] {
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

func view(of config: KBeaconConfiguration) -> DeviceConfigView {
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

func object(_ values: [String: SettingValue], identity: [String]) -> JSONObject {
  var object = JSONObject()
  for key in identity + values.keys.filter({ !identity.contains($0) }).sorted() {
    guard let value = values[key] else { continue }
    switch value {
    case .integer(let i): object[key] = .int(i)
    case .number(let d): if d.isFinite { object[key] = .double(d) }
    case .text(let s): object[key] = .string(s)
    }
  }
  return object
}

func configuration(of patch: DeviceConfigView) -> KBeaconConfiguration {
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

Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  for generation in [ProtocolGeneration.pro, .legacy] {
    guard let read = try? ReadResponse.parse(bytes, generation: generation) else { continue }
    _ = read.problems()
    let actual = view(of: read)
    _ = actual.common["ver"]?.textValue.flatMap(FirmwareVersion.init)
    for (profile, wanted) in desiredStates {
      var desired = wanted
      _ = profile.select.rejection(
        model: actual.common["model"]?.textValue,
        firmware: actual.common["ver"]?.textValue.flatMap(FirmwareVersion.init))
      _ = DeviceChecks.problems(desired: desired, actual: actual, allowUnreachable: profile.allowUnreachable)
      _ = SlotTypeChange.problems(profile: profile, desired: desired, actual: actual)
      if actual.isLegacy {
        guard case .success(let flat) = LegacyTranslation.desiredFlat(desired, actual: actual.common) else { continue }
        desired = DeviceConfigView(common: flat, isLegacy: true)
      }
      let changes = ConfigDiff.changes(desired: desired, actual: actual)
      _ = changes.map(\.description)
      let patch = ConfigDiff.patch(changes, desired: desired, actual: actual)
      _ = try? WriteRequest.bytes(for: configuration(of: patch), device: read.common)
      // The read-back of a device that took the patch: the answer with the patch laid over it.
      var after = actual
      after.common.merge(patch.common) { $1 }
      for (i, values) in patch.slots { after.slots[i, default: [:]].merge(values) { $1 } }
      for (i, values) in patch.triggers { after.triggers[i, default: [:]].merge(values) { $1 } }
      for (i, values) in patch.sensors { after.sensors[i, default: [:]].merge(values) { $1 } }
      _ = ConfigDiff.changes(desired: desired, actual: after)
    }
  }
  return 0
}
