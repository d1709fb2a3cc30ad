import Testing

@testable import Profiles

/// A slot whose advertising type changes (docs/protocols/kbeacon.md §6.4): written whole, and refused with the
/// profile's location when the profile lacks a key the new type needs.
@Suite("Slot type change", .timeLimit(.minutes(1))) struct SlotTypeChangeTests {
  /// A KBeacon Pro whose slot 0 is Eddystone UID (type 2, §6.4: `nid`, `sid`), 1000 ms, 0 dBm, connectable.
  let actual = DeviceConfigView(
    common: ["maxSlot": .integer(5)],
    slots: [
      0: [
        "slot": .integer(0), "type": .integer(2), "txPwr": .integer(0), "advPrd": .number(1000), "conn": .integer(1),
        "nid": .text("0x00112233445566778899"), "sid": .text("0xAABBCCDDEEFF"),
      ]
    ])

  func resolve(_ profile: Profile) throws -> DeviceConfigView {
    try DesiredResolver(urlCheck: testURLCheck).resolve(
      profile.desired, TemplateVariables(address: "DD:34:02:06:D0:6C", index: 1)
    ).get()
  }

  @Test func aTypeChangeWritesEveryKeyTheProfileGivesTheSlot() throws {
    let want = try resolve(
      try decode(
        #"""
        {"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
         "major": 1, "minor": 2, "intervalMs": 1000, "txPower": 0, "connectable": true}]}}
        """#))
    let changes = ConfigDiff.changes(desired: want, actual: actual)
    // Period, power and connectable equal the Eddystone slot's, so they are no change…
    #expect(changes.map(\.key) == ["majorID", "minorID", "type", "uuid"])
    // …but the new iBeacon slot is written whole (§6.4 iBeacon keys plus the base keys the profile names).
    #expect(
      ConfigDiff.patch(changes, desired: want, actual: actual).slots == [
        0: [
          "slot": .integer(0), "type": .integer(5), "uuid": .text("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"),
          "majorID": .integer(1), "minorID": .integer(2), "advPrd": .number(1000), "txPwr": .integer(0),
          "conn": .integer(1),
        ]
      ])
  }

  @Test func aTypeChangeWithoutTheNewTypesKeysIsRefusedWithItsLocation() throws {
    let profile = try decode(
      #"""
      {"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": 7}]}}
      """#)
    let want = try resolve(profile)
    let problems = SlotTypeChange.problems(profile: profile, desired: want, actual: actual)
    #expect(problems.count == 1)
    let problem = try #require(problems.first)
    #expect(problem.hasPrefix("\(profile.file):1:"))
    #expect(problem.contains("$.desired.slots[0].type: slot 0 changes from eddystone-uid to ibeacon"))
    #expect(problem.hasSuffix("the profile does not set uuid, minor"))
    // The same profile on a device whose slot 0 is already an iBeacon manages only the major.
    var iBeacon = actual
    iBeacon.slots[0] = [
      "slot": .integer(0), "type": .integer(5), "uuid": .text("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"),
      "majorID": .integer(1), "minorID": .integer(2),
    ]
    #expect(SlotTypeChange.problems(profile: profile, desired: want, actual: iBeacon).isEmpty)
  }

  @Test func aSlotTheDeviceDoesNotReportCountsAsAChangeFromOff() throws {
    let profile = try decode(#"{"version": 1, "desired": {"slots": [{"slot": 2, "type": "eddystone-url"}]}}"#)
    let problems = SlotTypeChange.problems(profile: profile, desired: try resolve(profile), actual: actual)
    #expect(problems.count == 1 && problems[0].contains("slot 2 changes from off to eddystone-url"))
  }
}
