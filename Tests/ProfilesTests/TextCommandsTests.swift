import Foundation
import KBeacon
import Testing

@testable import Profiles

/// The `commands` section of text-stream profiles: decoding with locations, templating per device, and how answers are
/// held to `expect`.
@Suite(.timeLimit(.minutes(1))) struct TextCommandsTests {
  static let uart = """
    {
      "version": 1,
      "select": {"addresses": ["6E:40:00:00:00:01", "6E:40:00:00:00:02"]},
      "commands": [
        {"query": "AT+NAME?", "expect": "+NAME:dock-{{index+1}}", "set": "AT+NAME=dock-{{index+1}}"},
        {"query": "AT+INTERVAL?", "expect": "/\\\\+INTERVAL:(500|5[0-9][0-9])/", "set": "AT+INTERVAL=500",
         "timeoutFirst": 3, "timeoutNext": 0.5},
        {"query": "AT+PIN?", "expect": "+PIN:{{address_hex}}", "set": "AT+PIN={{address_hex}}", "secret": true}
      ]
    }
    """

  static func loaded(_ text: String, inventory: String? = nil) throws -> LoadedProfile {
    try LoadedProfile.load(
      file: "p.json", read: { $0 == "p.json" ? Array(text.utf8) : Array((inventory ?? "").utf8) },
      urlCheck: testURLCheck)
  }

  @Test func decodesItemsRegexSecretAndTimeouts() throws {
    let profile = try decode(Self.uart)
    let commands = try #require(profile.commands)
    #expect(commands.count == 3)
    #expect(commands[0].expect == .text("+NAME:dock-{{index+1}}"))
    #expect(commands[1].expect == .regex("\\+INTERVAL:(500|5[0-9][0-9])"))
    #expect(commands[1].timeoutFirst == 3 && commands[1].timeoutNext == 0.5)
    #expect(commands[2].secret && !commands[0].secret)
    #expect(commands[2].path.description == "$.commands[2]")
    #expect(profile.desired.allObjects.allSatisfy { $0.fields.isEmpty })
  }

  @Test func everyProblemIsReportedWithItsPlace() {
    let text = """
      {"version": 1, "auth": {"passwordEnv": "X"}, "select": {"firmware": ">=1"},
       "commands": [
        {"query": "AT+NAME?", "expect": "/(+NAME/", "set": "AT+NAME=x"},
        {"query": "", "expect": "x", "sett": "y"},
        {"query": "A\\nB", "expect": "ok", "set": "AT{{", "timeoutFirst": 0, "secret": 1}],
       "desired": {}}
      """
    #expect(
      diagnostics(text) == [
        #"p.json:1:24: $.auth: "auth" is for KBeacons; a text-stream device has no password"#,
        #"p.json:1:57: $.select.firmware: select.firmware is read from a KBeacon's configuration; a text-stream device has none (allowed: addresses, name, minRSSI, tags)"#,
        #"p.json:3:35: $.commands[0].expect: invalid regular expression "(+NAME": quantifier '+' must appear after expression"#,
        #"p.json:4:3: $.commands[1]: missing "set" (allowed: an object with "query", "expect" and "set")"#,
        #"p.json:4:13: $.commands[1].query: empty query"#,
        #"p.json:4:32: $.commands[1].sett: unknown key "sett" — did you mean "set"? (allowed: query, expect, set, secret, timeoutFirst, timeoutNext)"#,
        #"p.json:5:13: $.commands[2].query: a line break inside the command would send two commands (the device profile's terminator ends each)"#,
        #"p.json:5:44: $.commands[2].set: unclosed "{{" in "AT{{""#,
        #"p.json:5:68: $.commands[2].timeoutFirst: 0 is out of range (allowed: 0.01…60 seconds)"#,
        #"p.json:5:81: $.commands[2].secret: expected true or false, found an integer (allowed: true, false)"#,
        #"p.json:6:13: $.desired: a profile configures KBeacons ("desired") or text-stream devices ("commands"), not both"#,
      ])
    #expect(
      diagnostics(#"{"version": 1, "commands": []}"#) == [
        #"p.json:1:28: $.commands: no commands: give at least one {"query", "expect", "set"}"#
      ])
    #expect(
      diagnostics(#"{"version": 1, "commands": {"query": "AT"}}"#) == [
        #"p.json:1:28: $.commands: expected an array of commands, found an object"#
      ])
  }

  @Test func aVariableNoInventoryProvidesIsFoundBeforeAnyDevice() throws {
    let text =
      #"{"version": 1, "inventory": "inv.csv", "commands": [{"query": "AT+NAME?", "expect": "+NAME:{{label}}", "set": "AT+NAME={{label}}"}]}"#
    do {
      _ = try Self.loaded(text, inventory: "address,room\n6E:40:00:00:00:01,hall\n")
      Issue.record("expected diagnostics")
    } catch let error as ProfileDiagnostics {
      #expect(
        error.all.map(\.description) == [
          #"p.json:1:85: $.commands[0].expect: {{label}} is not an inventory column for 6E:40:00:00:00:01 (allowed: {{address}}, {{address_hex}}, {{index}}, {{room}})"#,
          #"p.json:1:111: $.commands[0].set: {{label}} is not an inventory column for 6E:40:00:00:00:01 (allowed: {{address}}, {{address_hex}}, {{index}}, {{room}})"#,
        ])
    }
  }

  /// A column some rows have and this one lacks is named as such (no "did you mean" the same name); an unknown
  /// column gets the closest known one.
  @Test func aColumnSomeRowsLackIsToldFromAnUnknownOne() throws {
    let text =
      #"{"version": 1, "inventory": "inv.json", "commands": [{"query": "AT+NAME?", "expect": "+NAME:{{room}}", "set": "AT+NAME={{rooom}}"}]}"#
    let inventory = #"[{"address": "6E:40:00:00:00:01", "room": "hall"}, {"address": "6E:40:00:00:00:02"}]"#
    do {
      _ = try LoadedProfile.load(
        file: "p.json", read: { $0.hasSuffix("inv.json") ? Array(inventory.utf8) : Array(text.utf8) },
        urlCheck: testURLCheck)
      Issue.record("expected diagnostics")
    } catch {
      let allowed = "(allowed: {{address}}, {{address_hex}}, {{index}}, {{room}})"
      #expect(
        error.all.map(\.description) == [
          #"p.json:1:86: $.commands[0].expect: {{room}} has no value in the inventory for 6E:40:00:00:00:02 "#
            + allowed,
          #"p.json:1:111: $.commands[0].set: {{rooom}} is not an inventory column for 6E:40:00:00:00:01, 6E:40:00:00:00:02 — did you mean {{room}}? "#
            + allowed,
        ])
    }
  }

  /// Every field of every item that cannot be filled in is reported, not only the first (as for `desired`).
  @Test func thePreflightReportsEveryItemsEveryBadField() throws {
    let text =
      #"{"version": 1, "inventory": "inv.csv", "commands": [{"query": "AT+A={{v}}", "expect": "OK", "set": "AT+A={{v}}"}, {"query": "AT+B?", "expect": "OK", "set": "AT+B={{v}}"}]}"#
    let profile = try Self.loaded(text, inventory: "address,v\n6E:40:00:00:00:01,\"two\nlines\"\n")
    let variables = profile.variables(for: "6E:40:00:00:00:01")
    let failures = TextCommandResolver.failures(try #require(profile.profile.commands), variables)
    #expect(failures.map(\.path.description) == ["$.commands[0].query", "$.commands[0].set", "$.commands[1].set"])
    guard case .failure(let first) = TextCommandResolver.resolve(try #require(profile.profile.commands), variables)
    else {
      Issue.record("resolved a command with a line break")
      return
    }
    #expect(first == failures[0])
    let problems = TemplatePreflight(profile: profile, resolver: DesiredResolver(urlCheck: testURLCheck))
      .problems(addresses: ["6E:40:00:00:00:01"])
    #expect(problems.count == 3, "\(problems)")
  }

  @Test func filledInPerDeviceWithRegexValuesEscaped() throws {
    let profile = try Self.loaded(Self.uart)
    let commands = try #require(profile.profile.commands)
    let second = try TextCommandResolver.resolve(commands, profile.variables(for: "6e:40:00:00:00:02")).get()
    #expect(second.map(\.query) == ["AT+NAME?", "AT+INTERVAL?", "AT+PIN?"])
    #expect(second[0].set == "AT+NAME=dock-2" && second[0].expect == .text("+NAME:dock-2"))
    #expect(second[2].set == "AT+PIN=6E4000000002")

    // A value filled into a regular expression matches itself only: "." is not "any character".
    let regex =
      #"{"version": 1, "inventory": "inv.csv", "commands": [{"query": "Q", "expect": "/NAME:{{label}}( OK)?/", "set": "S"}]}"#
    let withDot = try Self.loaded(regex, inventory: "address,label\n6E:40:00:00:00:01,a.b\n")
    let item = try TextCommandResolver.resolve(
      try #require(withDot.profile.commands), withDot.variables(for: "6E:40:00:00:00:01")
    ).get()[0]
    #expect(item.expect == .regex(#"NAME:a\.b( OK)?"#))
    #expect(item.accepts(["NAME:a.b"]) && item.accepts(["x", "NAME:a.b OK"]))
    #expect(!item.accepts(["NAME:axb"]) && !item.accepts(["NAME:a.b!"]) && !item.accepts([]))
  }

  @Test func textMustEqualALineAndARegexMustMatchOneWhole() {
    let text = ResolvedTextCommand(index: 0, query: "AT+NAME?", expect: .text("+NAME:dock"), set: "AT+NAME=dock")
    #expect(text.accepts(["+NAME:dock", "OK"]))
    #expect(!text.accepts(["+NAME:dock-2", "OK"]) && !text.accepts(["+NAME:doc"]) && !text.accepts(["ERROR"]))
    let regex = ResolvedTextCommand(
      index: 1, query: "AT+TXPOWER?", expect: .regex("\\+TXPOWER:-?[0-4]"), set: "AT+TXPOWER=0")
    #expect(regex.accepts(["+TXPOWER:-4", "OK"]) && regex.accepts(["+TXPOWER:0"]))
    #expect(!regex.accepts(["+TXPOWER:-40"]) && !regex.accepts(["x+TXPOWER:0"]))
  }

  @Test func aChangeShowsTheAnswerAndTheSetMaskedWhenSecret() {
    let open = ResolvedTextCommand(index: 0, query: "AT+NAME?", expect: .text("+NAME:dock"), set: "AT+NAME=dock")
    #expect(
      open.change(answer: ["+NAME:old", "OK"]).description
        == #"command 0 AT+NAME?: answered "+NAME:old | OK" -> send "AT+NAME=dock""#)
    let secret = ResolvedTextCommand(
      index: 2, query: "AT+PIN?", expect: .text("+PIN:1234"), set: "AT+PIN=1234", secret: true)
    let change = secret.change(answer: ["+PIN:0000"])
    #expect(!change.description.contains("1234") && !change.description.contains("0000"))
    #expect(change.description == #"command 2 AT+PIN?: answered "••••••••" -> send "••••••••""#)
  }

  /// The shipped example (docs/guide/text-stream.md, "Provisioning by text commands") loads with its inventory.
  @Test func theExampleProfileIsValid() throws {
    let file = SchemaAndExamplesTests.profilesFolder.appendingPathComponent("at-uart-devices.json").path
    let loaded = try LoadedProfile.load(
      file: file, read: { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) }, urlCheck: testURLCheck)
    let items = try TextCommandResolver.resolve(
      try #require(loaded.profile.commands), loaded.variables(for: "6E:40:00:00:00:01")
    ).get()
    #expect(items.map(\.set) == ["AT+NAME=dock-01", "AT+INTERVAL=500", "AT+TXPOWER=-4"])
    #expect(items[1].accepts(["+INTERVAL:500", "OK"]) && !items[1].accepts(["+INTERVAL:1000", "OK"]))
  }

  @Test func templatesAreCheckedPerDeviceBeforeAnyConnection() throws {
    let text =
      #"{"version": 1, "inventory": "inv.csv", "commands": [{"query": "AT+NAME?", "expect": "ok", "set": "AT+NAME={{label}}"}]}"#
    let profile = try Self.loaded(text, inventory: "address,label\n6E:40:00:00:00:01,x\n")
    let preflight = TemplatePreflight(profile: profile, resolver: DesiredResolver(urlCheck: testURLCheck))
    #expect(preflight.problems(addresses: ["6E:40:00:00:00:01"]).isEmpty)
    let problems = preflight.problems(addresses: ["6E:40:00:00:00:09"])
    #expect(problems.count == 1)
    #expect(
      problems.first?.hasPrefix("p.json:1:98: $.commands[0].set: 6E:40:00:00:00:09: no variable \"label\"") == true,
      "\(problems)")
  }
}
