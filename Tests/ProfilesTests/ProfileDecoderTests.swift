import Testing

@testable import Profiles

/// A stand-in URL rule for these tests only: the real one (the Eddystone encoder) is wired by the CLI.
let testURLCheck: FieldCheck.URLCheck = { $0.count > 30 ? "too long to encode" : nil }

func decode(_ text: String) throws(ProfileDiagnostics) -> Profile {
  try ProfileDecoder.decode(Array(text.utf8), file: "p.json", urlCheck: testURLCheck)
}

func diagnostics(_ text: String) -> [String] {
  do {
    _ = try decode(text)
    return []
  } catch {
    return error.all.map(\.description)
  }
}

@Suite(.timeLimit(.minutes(1))) struct ProfileDecoderTests {
  static let retail = """
    {
      "version": 1,
      "description": "Aisle beacons",
      "select": {"name": "KBPro_*", "minRSSI": -80, "firmware": ">=5.20, <6", "tags": ["aisle"]},
      "inventory": "inventory.csv",
      "auth": {"passwordEnv": "BEACON_PASSWORD", "newPasswordFile": "new.txt"},
      "desired": {
        "name": "{{room}}",
        "measuredPower": -59,
        "slots": [
          {"slot": 0, "type": "ibeacon", "uuid": "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "major": 100,
           "minor": "{{index+1}}", "txPower": 0, "intervalMs": 1022.5, "connectable": true},
          {"slot": 1, "type": "ksensor", "include": ["temperature-humidity", "acceleration"]}
        ],
        "triggers": [{"index": 0, "type": "button-single-click", "actions": ["advertise", "alert"], "slot": 1}],
        "sensors": [{"type": "temperature-humidity", "log": true, "temperatureThreshold": 0.5}]
      }
    }
    """

  @Test func decodesEverySection() throws {
    let p = try decode(Self.retail)
    #expect(p.description == "Aisle beacons")
    #expect(p.select.name == "KBPro_*" && p.select.minimumRSSI == -80 && p.select.tags == ["aisle"])
    #expect(p.select.firmware?.contains(FirmwareVersion("V5.22")!) == true)
    #expect(p.select.firmware?.contains(FirmwareVersion("6.0")!) == false)
    #expect(p.inventory == "inventory.csv")
    #expect(p.auth.password == .environment("BEACON_PASSWORD"))
    #expect(p.auth.newPassword == .file("new.txt"))
    #expect(p.desired.common["name"]?.value == .template("{{room}}"))
    #expect(p.desired.common["measuredPower"]?.value == .integer(-59))
    #expect(p.desired.slots[0]?["minor"]?.value == .template("{{index+1}}"))
    #expect(p.desired.slots[0]?["minor"]?.position?.line == 12)
    #expect(p.desired.slots[1]?["include"]?.value == .names(["temperature-humidity", "acceleration"]))
    #expect(p.desired.triggers[0]?["actions"]?.value == .names(["advertise", "alert"]))
    #expect(p.desired.sensors[0x2]?["temperatureThreshold"]?.value == .number(0.5))
  }

  /// Error-message snapshots: every problem of a broken profile at once, with file:line:col, JSON path and
  /// the allowed values.
  @Test func reportsAllErrorsAtOnceWithLocationsAndAllowedValues() {
    let broken = """
      {
        "version": 1,
        "select": {"addresses": ["DD:34:02:06:D0"], "firmware": "newest"},
        "desired": {
          "name": "a-name-that-is-far-too-long",
          "measuredPowr": -59,
          "slots": [
            {"slot": 0, "type": "ibeacon", "uuid": "not-a-uuid", "major": 70000, "minor": 1.5, "url": "x"},
            {"slot": 0, "type": "eddystone-url", "url": "https://a-very-long-domain-name.example.com/"},
            {"slot": 7, "type": "beacon", "intervalMs": 50}
          ],
          "triggers": [{"index": 0, "type": "button-single-click", "actions": ["advertise"]}]
        }
      }
      """
    #expect(
      diagnostics(broken) == [
        #"p.json:3:28: $.select.addresses[0]: "DD:34:02:06:D0" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF)"#,
        #"p.json:3:59: $.select.firmware: "newest" is not a version range (allowed: comparisons such as ">=5.20, <6")"#,
        #"p.json:5:13: $.desired.name: "a-name-that-is-far-too-long" is 27 bytes long in UTF-8 (allowed: UTF-8 text of at most 18 bytes — 18 ASCII characters, fewer accented letters or emoji — without control characters)"#,
        #"p.json:6:5: $.desired.measuredPowr: unknown key "measuredPowr" — did you mean "measuredPower"? (allowed: name, measuredPower, alwaysPowerOn, slots, triggers, sensors)"#,
        #"p.json:8:46: $.desired.slots[0].uuid: "not-a-uuid" is not a UUID (allowed: a UUID like E2C56DB5-DFFB-48D2-B060-D0F5A71096E0)"#,
        #"p.json:8:69: $.desired.slots[0].major: 70000 is out of range (allowed: 0…65535)"#,
        #"p.json:8:85: $.desired.slots[0].minor: expected an integer, found 1.5 (allowed: 0…65535)"#,
        #"p.json:8:90: $.desired.slots[0].url: unknown key "url" (not a key of ibeacon slots) (allowed: slot, type, txPower, intervalMs, connectable, triggerOnly, mode, uuid, major, minor)"#,
        #"p.json:9:16: $.desired.slots[1].slot: slot 0 is configured twice"#,
        #"p.json:9:51: $.desired.slots[1].url: too long to encode (allowed: an http(s) URL whose Eddystone encoding fits 17 bytes)"#,
        #"p.json:10:16: $.desired.slots[2].slot: 7 is out of range (allowed: 0…4)"#,
        #"p.json:10:27: $.desired.slots[2].type: "beacon" is not a known value (allowed: off, ksensor, eddystone-uid, eddystone-tlm, eddystone-url, ibeacon, system)"#,
        #"p.json:10:51: $.desired.slots[2].intervalMs: 50 is out of range (allowed: 100…10000)"#,
        #"p.json:12:73: $.desired.triggers[0].actions: a trigger with the advertise action must name its "slot""#,
      ])
  }

  @Test func missingVersionAndDesiredAreReported() {
    #expect(
      diagnostics("{}") == [
        #"p.json:1:1: $: missing "version" (allowed: 1)"#,
        #"p.json:1:1: $: missing "desired" (a KBeacon's settings) or "commands" (a text-stream device's): the profile must say what the devices should be"#,
      ])
    #expect(
      diagnostics(#"{"version": 2, "desired": {}}"#) == [
        #"p.json:1:13: $.version: unsupported profile version 2 (allowed: 1)"#
      ])
  }

  @Test func syntaxErrorsNameTheFileAndPlace() {
    #expect(
      diagnostics("{\"version\": 1,\n \"desired\": {,}}") == [
        "p.json:2:14: $: not valid JSON: expected a quoted key (JSON has no comments or trailing commas)"
      ])
  }

  @Test func templatesAreRefusedWhereTheyCannotStandAndCheckedForSyntax() {
    let text =
      #"{"version": 1, "desired": {"slots": [{"slot": "{{index}}", "type": "ibeacon", "major": "{{index+x}}"}]}}"#
    #expect(
      diagnostics(text) == [
        #"p.json:1:47: $.desired.slots[0].slot: templates are not allowed in "slot" (allowed: 0…4)"#,
        #"p.json:1:88: $.desired.slots[0].major: "{{index+x}}": the offset must be a whole number"#,
      ])
  }

  @Test func sensorFieldsAreCheckedAgainstTheirSensorType() {
    // msItvl is 1…200 s for temperature-humidity but 10…3600 s for CO2; luxThd exists only for light.
    let text = #"""
      {"version": 1, "desired": {"sensors": [
        {"type": "temperature-humidity", "measureIntervalS": 3600, "luxThreshold": 5},
        {"type": "co2", "measureIntervalS": 3600},
        {"type": "light", "measureIntervalS": 5, "luxThreshold": 20}]}}
      """#
    let lines = diagnostics(text)
    #expect(lines.count == 2, "\(lines)")
    #expect(
      lines.contains {
        $0.hasSuffix(
          "$.desired.sensors[0].measureIntervalS: 3600 is out of range for sensor temperature-humidity (allowed: 1…200)"
        )
      })
    #expect(
      lines.contains {
        $0.contains(
          #"$.desired.sensors[0].luxThreshold: "luxThreshold" does not apply to sensor temperature-humidity (allowed: "#
        )
      })
  }

  @Test func allowUnreachableIsABooleanAndOffByDefault() throws {
    #expect(try decode(#"{"version": 1, "desired": {}}"#).allowUnreachable == false)
    #expect(try decode(#"{"version": 1, "allowUnreachable": true, "desired": {}}"#).allowUnreachable == true)
    #expect(
      diagnostics(#"{"version": 1, "allowUnreachable": "yes", "desired": {}}"#) == [
        #"p.json:1:36: $.allowUnreachable: expected true or false, found a string (allowed: true, false)"#
      ])
  }

  @Test func aPasswordPastedWhereItsVariablesNameBelongsIsRefusedWithoutBeingRepeated() {
    let text = #"{"version": 1, "auth": {"newPasswordEnv": "S3cret Passw0rd!!"}, "desired": {}}"#
    let found = diagnostics(text)
    #expect(
      found == [
        "p.json:1:43: $.auth.newPasswordEnv: is not an environment variable's name (the value is not shown: it may be "
          + "the password itself) (allowed: \(EnvironmentVariableName.allowed))"
      ])
    #expect(!found.joined().contains("S3cret"))
    #expect(diagnostics(#"{"version": 1, "auth": {"passwordEnv": "SITE_PW_2"}, "desired": {}}"#) == [])
  }

  @Test func anEnvironmentVariableNameIsLettersDigitsAndUnderscoresNotStartingWithADigit() {
    for name in ["A", "_", "BEACON_PASSWORD", "site2_pw", "_x9"] { #expect(EnvironmentVariableName.isValid(name)) }
    for name in ["", "2FA", "A-B", "a b", "pw!", "ÄPW", "x\u{0}", "BEACON=PW"] {
      #expect(!EnvironmentVariableName.isValid(name), "\(name)")
    }
  }

  @Test func bothPasswordSourcesAtOnceIsAnError() {
    let text = #"{"version": 1, "auth": {"passwordEnv": "A", "passwordFile": "b"}, "desired": {}}"#
    #expect(
      diagnostics(text) == [#"p.json:1:61: $.auth.passwordFile: give either "passwordEnv" or "passwordFile", not both"#]
    )
  }
}
