import Testing

@testable import Profiles

@Suite(.timeLimit(.minutes(1))) struct DiffTests {
  /// A KBeacon Pro as `getPara` reports it (docs/protocols/kbeacon.md §6.3–6.5): slot 0 iBeacon major 1 minor 2.
  let actual = DeviceConfigView(
    common: [
      "name": .text("KBPro_1"), "meaPwr": .integer(-59), "minPwr": .integer(-20), "maxPwr": .integer(4),
      "maxSlot": .integer(5), "maxTg": .integer(5), "bCap": .integer(0x0001_3F0F), "trCap": .integer(0b1111_1111),
    ],
    slots: [
      0: [
        "slot": .integer(0), "type": .integer(5), "txPwr": .integer(0), "advPrd": .number(1022.5), "conn": .integer(1),
        "uuid": .text("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), "majorID": .integer(1), "minorID": .integer(2),
      ]
    ],
    triggers: [:])

  func desired(_ profile: String, address: String = "DD:34:02:06:D0:6C", index: Int? = 4) throws -> DeviceConfigView {
    let p = try decode(profile)
    return try DesiredResolver(urlCheck: testURLCheck).resolve(
      p.desired, TemplateVariables(address: address, index: index)
    ).get()
  }

  @Test func compliantDeviceYieldsNoChange() throws {
    let want = try desired(
      #"""
      {"version": 1, "desired": {"measuredPower": -59, "slots": [{"slot": 0, "type": "ibeacon",
       "uuid": "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "major": 1, "minor": 2, "intervalMs": 1022.5, "connectable": true}]}}
      """#)
    #expect(ConfigDiff.changes(desired: want, actual: actual) == [])
  }

  @Test func choiceKeysReadWithTheirProfileNames() {
    let type = ConfigChange(scope: .slot(0), key: "type", old: .integer(1), new: .integer(5))
    #expect(type.description == "slot 0 type: ksensor (1) -> ibeacon (5)")
    let off = ConfigChange(scope: .slot(1), key: "type", old: nil, new: .integer(0))
    #expect(off.description == "slot 1 type: (unset) -> off (0)")
    // A number that is no named choice, and keys that are no choice, stay as they are.
    #expect(
      ConfigChange(scope: .slot(0), key: "type", old: .integer(9), new: .integer(5)).description
        == "slot 0 type: 9 -> ibeacon (5)")
    #expect(
      ConfigChange(scope: .slot(0), key: "majorID", old: .integer(1), new: .integer(5)).description
        == "slot 0 majorID: 1 -> 5")
  }

  @Test func onlyChangedKeysGoIntoThePatchWithTheSlotIdentity() throws {
    let want = try desired(
      #"""
      {"version": 1, "desired": {"name": "shop-{{index}}", "measuredPower": -59,
       "slots": [{"slot": 0, "type": "ibeacon", "major": 1, "minor": "{{index+100}}", "txPower": 0}]}}
      """#)
    let changes = ConfigDiff.changes(desired: want, actual: actual)
    #expect(changes.map(\.description) == [#"device name: "KBPro_1" -> "shop-4""#, "slot 0 minorID: 2 -> 104"])
    let patch = ConfigDiff.patch(changes, desired: want, actual: actual)
    #expect(
      patch
        == DeviceConfigView(
          common: ["name": .text("shop-4")],
          slots: [0: ["slot": .integer(0), "type": .integer(5), "minorID": .integer(104)]]))
    #expect(patch.keyCount == 4)
  }

  @Test func convertsUnitsFlagsSwitchesAndChoices() throws {
    let want = try desired(
      #"""
      {"version": 1, "desired": {"alwaysPowerOn": false,
       "slots": [{"slot": 1, "type": "ksensor", "include": ["temperature-humidity"], "connectable": false},
                 {"slot": 2, "type": "eddystone-uid", "namespace": "00112233445566778899", "instance": "0xAABBCCDDEEFF"}],
       "triggers": [{"index": 0, "type": "button-double-click", "actions": ["advertise", "report"], "slot": 1}],
       "sensors": [{"type": "temperature-humidity", "temperatureThreshold": 0.5, "humidityThreshold": 3, "log": true}]}}
      """#)
    #expect(want.common == ["atPwr": .integer(0)])
    #expect(
      want.slots[1] == [
        "slot": .integer(1), "type": .integer(1), "conn": .integer(0), "ht": .integer(1), "axis": .integer(0),
        "lux": .integer(0), "pir": .integer(0), "voc": .integer(0), "co2": .integer(0), "mag": .integer(0),
        "rcd": .integer(0),
      ])
    #expect(
      want.slots[2]?["nid"] == .text("0x00112233445566778899") && want.slots[2]?["sid"] == .text("0xaabbccddeeff"))
    #expect(
      want.triggers[0] == ["trIdx": .integer(0), "trType": .integer(5), "trAct": .integer(0x11), "slot": .integer(1)])
    #expect(
      want.sensors[2] == ["srType": .integer(2), "tsThd": .integer(5), "hsThd": .integer(30), "log": .integer(1)])
    // A slot the device does not have yet: every key is a change from (unset).
    let changes = ConfigDiff.changes(desired: want, actual: actual)
    #expect(changes.contains(ConfigChange(scope: .slot(2), key: "nid", old: nil, new: .text("0x00112233445566778899"))))
    #expect(changes.filter { $0.scope == .trigger(0) }.count == 4)
  }

  @Test func templatedValuesAreCheckedPerDevice() throws {
    let profile = #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "minor": "{{index+65535}}"}]}}"#
    let p = try decode(profile)
    let r = DesiredResolver(urlCheck: testURLCheck).resolve(
      p.desired, TemplateVariables(address: "DD:34:02:06:D0:6C", index: 1))
    guard case .failure(let failure) = r else {
      Issue.record("accepted 65536")
      return
    }
    #expect(failure.description == "$.desired.slots[0].minor: 65536 is out of range (allowed: 0…65535)")
  }

  @Test func deviceLimitsFailTheDeviceWithAReason() throws {
    let want = try desired(
      #"""
      {"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "txPower": 8, "mode": "long-range"},
        {"slot": 1, "type": "ksensor", "include": ["co2"]}],
       "triggers": [{"index": 0, "type": "periodic", "actions": ["record"]}]}}
      """#)
    #expect(
      DeviceChecks.problems(desired: want, actual: actual) == [
        "slot 0 tx power 8 dBm is above this device's maximum 4 dBm",
        "slot 0: this device has no long-range (Coded PHY) mode",
        "slot 1: this device has no CO2 sensor to include in KSensor frames",
        "trigger 0: this device does not support periodic triggers",
      ])
  }

  @Test func aChangeThatLeavesNoConnectableSlotIsRefusedUnlessAllowed() throws {
    let lockout = try desired(
      #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "connectable": false}]}}"#)
    let problems = DeviceChecks.problems(desired: lockout, actual: actual)
    #expect(problems.count == 1)
    #expect(problems.first?.hasPrefix("after this change no advertising slot would be connectable") == true)
    #expect(DeviceChecks.problems(desired: lockout, actual: actual, allowUnreachable: true) == [])

    let allOff = try desired(#"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "off"}]}}"#)
    #expect(
      DeviceChecks.problems(desired: allOff, actual: actual).first?.hasPrefix(
        "after this change no slot would advertise") == true)

    // Another connectable slot keeps the device reachable; a change that touches no slot is not judged.
    let second = try desired(
      #"""
      {"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "connectable": false},
        {"slot": 1, "type": "system", "connectable": true}]}}
      """#)
    #expect(DeviceChecks.problems(desired: second, actual: actual) == [])
    let nameOnly = try desired(#"{"version": 1, "desired": {"name": "x"}}"#)
    var silent = actual
    silent.slots[0]?["conn"] = .integer(0)
    #expect(DeviceChecks.problems(desired: nameOnly, actual: silent) == [])
  }

  /// Only ASCII hex ids compare case-insensitively: a name in full-width letters (`0xＡＢ`, which
  /// `Character.isHexDigit` accepts) differs from `0xａｂ` and must show up as a change.
  @Test func fullWidthHexIsNoIdentifier() {
    #expect(ConfigDiff.same(.text("0xAB"), .text("0xab")))
    #expect(
      ConfigDiff.same(.text("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), .text("e2c56db5-dffb-48d2-b060-d0f5a71096e0")))
    #expect(!ConfigDiff.same(.text("0x\u{FF21}\u{FF22}"), .text("0x\u{FF41}\u{FF42}")))
    let fullWidthUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E" + "\u{FF21}"
    #expect(!ConfigDiff.same(.text(fullWidthUUID), .text(fullWidthUUID.lowercased())))
  }
}
