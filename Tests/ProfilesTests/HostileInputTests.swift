import BeaconCore
import JSON
import KBeacon
import Testing

@testable import Profiles

/// Inputs found by fuzzing the profile and plan paths: each once trapped the process; each must
/// now be a clear error at its JSON path, or a plan line, never a crash.
@Suite("Hostile profile and device inputs", .timeLimit(.minutes(2)))
struct HostileInputTests {
  /// A value far beyond `Int`'s range used to trap (`FieldSpec.Kind.plain` converted it to `Int`).
  @Test func aHugeIntervalIsAnOutOfRangeErrorAtItsPath() {
    let profile = #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "intervalMs": 1e300}]}}"#
    #expect(
      diagnostics(profile) == [
        "p.json:1:83: $.desired.slots[0].intervalMs: 1e+300 is out of range (allowed: 100…10000)"
      ])
  }

  /// A number no `Double` holds is valid JSON but out of every range: named as written, at its path.
  @Test func aNumberBeyondDoubleIsOutOfRangeAtItsPath() {
    let profile =
      #"{"version": 1, "desired": {"measuredPower": -1e400, "slots": [{"slot": 0, "type": "ibeacon", "intervalMs": 1e400}]}}"#
    #expect(
      diagnostics(profile) == [
        "p.json:1:45: $.desired.measuredPower: -1e400 is out of range (allowed: -100…10)",
        "p.json:1:108: $.desired.slots[0].intervalMs: 1e400 is out of range (allowed: 100…10000)",
      ])
    #expect(
      diagnostics(#"{"version": 1, "select": {"minRSSI": -1e400}, "desired": {}}"#) == [
        "p.json:1:38: $.select.minRSSI: -1e400 is out of range (allowed: -127…20)"
      ])
  }

  /// A scaled sensor value near `Double.greatestFiniteMagnitude` (threshold × 10, docs/protocols/kbeacon.md §6.6)
  /// overflows to infinity when scaled, and `1e400` is infinite already; the sensor check must not hand
  /// either to `JSONNumber(Double)`: both are out-of-range errors at their paths.
  @Test func aScaledSensorValueThatOverflowsIsOutOfRange() {
    let profile =
      #"{"version": 1, "desired": {"sensors": [{"type": "temperature-humidity", "temperatureThreshold": 1.7e308, "humidityThreshold": 1e400}]}}"#
    #expect(diagnostics(profile).count == 2)
    #expect(diagnostics(profile).first?.contains("$.desired.sensors[0].temperatureThreshold: ") == true)
  }

  /// An integer field given a whole number beyond `Int` is out of range, named as the file wrote it.
  @Test func aHugeIntegerFieldValueIsNamedNotConverted() {
    let profile = #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": 1e300}]}}"#
    #expect(diagnostics(profile) == ["p.json:1:78: $.desired.slots[0].major: 1e300 is out of range (allowed: 0…65535)"])
  }

  /// `{{index+9223372036854775807}}` parses (the offset is a valid Int) but overflows when added.
  @Test func anIndexOffsetThatOverflowsFailsTheDeviceInsteadOfTrapping() throws {
    let profile = try decode(
      #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "minor": "{{index+9223372036854775807}}"}]}}"#
    )
    let result = DesiredResolver(urlCheck: testURLCheck).resolve(
      profile.desired, TemplateVariables(address: "DD:34:02:06:D0:6C", index: 4))
    #expect(
      result.failure?.description
        == "$.desired.slots[0].minor: {{index}} + 9223372036854775807 does not fit in a 64-bit integer")
    let low = Template("{{index-9223372036854775807}}").render(TemplateVariables(address: "x", index: -2))
    #expect(low == .failure(TemplateError("{{index}} + -9223372036854775807 does not fit in a 64-bit integer")))
  }

  /// A device's configuration answer carrying 1e300 (or ±infinity, from `-1e400`) is shown in the plan.
  @Test func aPlanShowsADeviceValueBeyondIntRange() {
    let huge = ConfigChange(scope: .slot(0), key: "advPrd", old: .number(1e300), new: .number(1000))
    #expect(huge.description == "slot 0 advPrd: 1e+300 -> 1000")
    let infinite = ConfigChange(scope: .common, key: "meaPwr", old: .number(-.infinity), new: .integer(-59))
    #expect(infinite.description == "device meaPwr: -inf -> -59")
  }

  /// `maxSlot`/`maxTg` of `Int.min` used to overflow on `count - 1`; a `maxPrd` of −1e400 (−∞) trapped
  /// when the interval message was formatted; a power or type of 1e300 trapped converting to `Int`.
  @Test func deviceLimitsFromAHostileDeviceAreReportedNotTrappedOn() {
    let desired = DeviceConfigView(
      slots: [0: ["type": .integer(5), "txPwr": .integer(0), "advPrd": .number(1000)]],
      triggers: [0: ["trType": .integer(1)]])
    let actual = DeviceConfigView(common: [
      "maxSlot": .integer(.min), "maxTg": .integer(0), "maxPrd": .number(-.infinity), "minPwr": .number(1e300),
      "bCap": .number(1e300),
    ])
    #expect(
      DeviceChecks.problems(desired: desired, actual: actual, allowUnreachable: true) == [
        "slot 0 does not exist: this device has -9223372036854775808 slots (none)",
        "slot 0 interval 1000 ms is above this device's maximum -inf ms",
        "trigger 0 does not exist: this device has 0 triggers (none)",
      ])
    let hostileDesired = DeviceConfigView(slots: [0: ["type": .number(1e300), "txPwr": .number(-1e300)]])
    let limits = DeviceConfigView(common: [
      "maxSlot": .integer(5), "minPwr": .integer(-20), "bCap": .integer(0x0001_3F0F),
    ])
    #expect(DeviceChecks.problems(desired: hostileDesired, actual: limits, allowUnreachable: true) == [])
  }

  /// The schema is written through the one JSON writer: a help text with control characters, quotes and
  /// backslashes still gives valid JSON that reads back to the same text (its own writer escaped only
  /// `"`, `\\` and newlines).
  @Test func schemaTextEscapesEverythingJSONRequires() throws {
    let spec = FieldSpec("x", nil, .boolean, templatable: false, help: "tab\there\u{01} \"q\" \\ end\r")
    let text = JSONWriter.pretty(ProfileSchema.schema(spec))
    #expect(try JSONParser.parseWithPositions(Array(text.utf8))["description"]?.kind == .string(spec.help))
  }

  /// Addresses, UUIDs and hex ids are parsed by BeaconCore: a sign (`UInt64(_:radix:)` takes `+`) or a
  /// full-width digit (`Character.isHexDigit` takes `Ａ`) is not hex.
  @Test func addressesUUIDsAndHexIdsTakeOnlyASCIIHexDigits() {
    #expect(BluetoothAddress("+A:BB:CC:DD:EE:FF") == nil)
    #expect(BluetoothAddress("+ABBCCDDEEFF") == nil)
    #expect(BluetoothAddress("dd:34:02:06:d0:6c")?.description == "DD:34:02:06:D0:6C")
    let profile = #"""
      {"version": 1, "select": {"addresses": ["+A:BB:CC:DD:EE:FF", "ＡＡ:BB:CC:DD:EE:FF", "DD-34-02-06-D0-6C"]},
       "desired": {"slots": [{"slot": 0, "type": "ibeacon", "uuid": "Ｅ2C56DB5-DFFB-48D2-B060-D0F5A71096E0"},
         {"slot": 1, "type": "eddystone-uid", "namespace": "0x00112233445566778899", "instance": "ａａbbccddeeff"}]}}
      """#
    let found = diagnostics(profile).map { $0.split(separator: " ", maxSplits: 1)[1] }
    #expect(
      found == [
        #"$.select.addresses[0]: "+A:BB:CC:DD:EE:FF" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF)"#,
        #"$.select.addresses[1]: "ＡＡ:BB:CC:DD:EE:FF" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF)"#,
        #"$.select.addresses[2]: "DD-34-02-06-D0-6C" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF)"#,
        #"$.desired.slots[0].uuid: "Ｅ2C56DB5-DFFB-48D2-B060-D0F5A71096E0" is not a UUID (allowed: a UUID like E2C56DB5-DFFB-48D2-B060-D0F5A71096E0)"#,
        #"$.desired.slots[1].instance: "ａａbbccddeeff" is not 12 hex digits (allowed: 12 hex digits, optionally prefixed 0x)"#,
      ])
  }

  @Test func wholeNumbersPrintPlainAndEverythingElseInDoubleSpelling() {
    #expect(FieldSpec.Kind.plain(1000) == "1000")
    #expect(FieldSpec.Kind.plain(1022.5) == "1022.5")
    #expect(FieldSpec.Kind.plain(9.3e18) == "9.3e+18")
    #expect(FieldSpec.Kind.plain(.nan) == "nan")
  }
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let f) = self { f } else { nil }
  }
}
