import Testing

@testable import Profiles

@Suite(.timeLimit(.minutes(1))) struct LegacyTranslationTests {
  /// A legacy KBeacon (docs/protocols/kbeacon.md §7): iBeacon + TLM enabled (type 0x4|0x8), connectable, no auto power-on.
  let actual: [String: SettingValue] = [
    "modle": .text("KBN52"), "devName": .text("KBeacon_1201"), "type": .integer(0x0C), "advPrd": .number(1000),
    "txPwr": .integer(0), "advFlag": .integer(0x1), "uuid": .text("7777772E-6B6B-6D63-6E2E-636F6D000001"),
    "majorID": .integer(1), "minorID": .integer(2),
  ]

  func desired(_ text: String) throws -> DeviceConfigView {
    let p = try decode(text)
    return try DesiredResolver(urlCheck: testURLCheck).resolve(
      p.desired, TemplateVariables(address: "BC:57:29:00:12:01", index: 3)
    ).get()
  }

  @Test func slotsBecomeTheFlatObjectWithTypeBitsAndSharedBaseKeys() throws {
    let want = try desired(
      #"""
      {"version": 1, "desired": {"name": "door-{{index}}", "alwaysPowerOn": true, "slots": [
        {"slot": 0, "type": "ibeacon", "major": 9, "minor": "{{index}}", "intervalMs": 500, "connectable": true},
        {"slot": 1, "type": "eddystone-url", "url": "https://a.org", "intervalMs": 500}]}}
      """#)
    let flat = try LegacyTranslation.desiredFlat(want, actual: actual).get()
    #expect(
      flat == [
        "devName": .text("door-3"), "majorID": .integer(9), "minorID": .integer(3), "url": .text("https://a.org"),
        "advPrd": .number(500), "type": .integer(0x0C | 0x10), "advFlag": .integer(0x1 | 0x4),
      ])
    let changes = ConfigDiff.changes(desired: DeviceConfigView(common: flat), actual: DeviceConfigView(common: actual))
    #expect(changes.map(\.key) == ["advFlag", "advPrd", "devName", "majorID", "minorID", "type", "url"])
  }

  @Test func whatCannotBeExpressedFailsWithAReason() throws {
    let differing = try desired(
      #"""
      {"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "intervalMs": 500},
        {"slot": 1, "type": "eddystone-tlm", "intervalMs": 1000}]}}
      """#)
    #expect(
      reason(LegacyTranslation.desiredFlat(differing, actual: actual))
        == ("slots 0 and 1 differ in advPrd, but this generation has one advPrd for all frames"))
    let system = try desired(#"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "system"}]}}"#)
    #expect(
      reason(LegacyTranslation.desiredFlat(system, actual: actual))
        == ("slot 0: system frames do not exist on this generation"))
    let triggers = try desired(
      #"{"version": 1, "desired": {"triggers": [{"index": 0, "type": "motion", "actions": ["alert"]}]}}"#)
    #expect(
      reason(LegacyTranslation.desiredFlat(triggers, actual: actual))
        == ("profile triggers apply to KBeacon Pro (v2) devices only"))
  }
}

func reason(_ r: Result<[String: SettingValue], LegacyTranslation.Failure>) -> String? {
  if case .failure(let f) = r { return f.reason }
  return nil
}
