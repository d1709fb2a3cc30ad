import FuzzSupport
import KBeacon
import Profiles

// A device's `getPara` answer (arbitrary bytes, either generation) through `plan`'s path, as a visit takes
// it (Fleet's ProfileWork): the configuration model, its flat view (Profiles' KBeaconViews, the
// one the product uses), the selection's model/firmware rejection, DeviceChecks,
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

Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  for generation in [ProtocolGeneration.pro, .legacy] {
    guard let read = try? ReadResponse.parse(bytes, generation: generation) else { continue }
    _ = read.problems()
    let actual = KBeaconViews.view(of: read)
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
      _ = try? WriteRequest.bytes(for: KBeaconViews.configuration(of: patch), device: read.common)
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
