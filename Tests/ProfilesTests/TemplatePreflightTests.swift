import Testing

@testable import Profiles

/// Templated values filled in for every device before any connection (docs/protocols/kbeacon.md §6.3: `name`
/// ≤ 18 characters), each problem with the device and the field's place in the profile.
@Suite("Template preflight", .timeLimit(.minutes(1))) struct TemplatePreflightTests {
  static let addresses = (1...7).map { "DD:34:02:06:D1:0\($0)" }

  static func loaded(name: String) throws -> LoadedProfile {
    let list = addresses.map { "\"\($0)\"" }.joined(separator: ", ")
    let text = #"{"version": 1, "select": {"addresses": [\#(list)]},"# + "\n" + #" "desired": {"name": "\#(name)"}}"#
    return try LoadedProfile.load(file: "p.json", read: { _ in Array(text.utf8) }, urlCheck: testURLCheck)
  }

  @Test func aNameTooLongForEveryDeviceIsFoundBeforeAnyConnection() throws {
    // "aisle-x-" + 12 hex digits = 20 characters, over the 18 a KBeacon name holds.
    let preflight = TemplatePreflight(
      profile: try Self.loaded(name: "aisle-x-{{address_hex}}"), resolver: DesiredResolver(urlCheck: testURLCheck))
    let problems = preflight.problems(addresses: Self.addresses)
    #expect(problems.count == 6)
    // Line 2, column 22: where the name's value starts.
    #expect(problems[0].hasPrefix("p.json:2:22: $.desired.name: DD:34:02:06:D1:01: "))
    #expect(problems[4].contains("DD:34:02:06:D1:05"))
    #expect(problems[5] == "p.json: $.desired.name: and 2 more devices")
  }

  /// One inventory row with two bad values gets both (the first used to hide the second), each naming the
  /// row's line; the report closes as a profile's own errors do, counting every value.
  @Test func everyBadValueOfARowIsReportedWithItsInventoryLine() throws {
    let text =
      #"{"version": 1, "inventory": "i.csv", "desired": {"name": "{{room}}", "slots": [{"slot": 0, "type": "ibeacon", "major": 1, "minor": "{{minor}}"}]}}"#
    let csv =
      "address,room,minor\nDD:34:02:06:D1:01,room-with-a-name-too-long,70000\nDD:34:02:06:D1:02,ok,70001\nDD:34:02:06:D1:03,ok,7\n"
    let loaded = try LoadedProfile.load(
      file: "p.json", read: { $0.hasSuffix(".csv") ? Array(csv.utf8) : Array(text.utf8) }, urlCheck: testURLCheck)
    let preflight = TemplatePreflight(profile: loaded, resolver: DesiredResolver(urlCheck: testURLCheck))
    let addresses = ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02"]
    let problems = preflight.problems(addresses: addresses)
    #expect(problems.count == 3, "\(problems)")
    #expect(problems[0].contains("$.desired.name: DD:34:02:06:D1:01 (i.csv line 2): "), "\(problems)")
    #expect(
      problems[1].contains("$.desired.slots[0].minor: DD:34:02:06:D1:01 (i.csv line 2): 70000 is out of range"),
      "\(problems)")
    #expect(problems[2].contains("DD:34:02:06:D1:02 (i.csv line 3): 70001 is out of range"), "\(problems)")
    #expect(
      preflight.report(addresses: addresses)
        == (problems + ["3 values filled in for the devices cannot be used; nothing was sent to any device"])
        .joined(separator: "\n"))
    #expect(preflight.report(addresses: ["DD:34:02:06:D1:03"]) == nil)
  }

  /// Failures are listed in the profile's order, slot 0 before slot 1, the same every run (slots are kept by
  /// number in a dictionary, whose order changes from process to process).
  @Test func failuresOfSeveralSlotsAreInSlotOrder() throws {
    let slots = (0..<4).map { #"{"slot": \#($0), "type": "ibeacon", "major": 1, "minor": "{{minor}}"}"# }
    let text = #"{"version": 1, "inventory": "i.csv", "desired": {"slots": [\#(slots.joined(separator: ", "))]}}"#
    let csv = "address,minor\nDD:34:02:06:D1:01,70000\n"
    let loaded = try LoadedProfile.load(
      file: "p.json", read: { $0.hasSuffix(".csv") ? Array(csv.utf8) : Array(text.utf8) }, urlCheck: testURLCheck)
    let failures = DesiredResolver(urlCheck: testURLCheck).failures(
      loaded.profile.desired, loaded.variables(for: "DD:34:02:06:D1:01"))
    #expect(failures.map(\.path.description) == (0..<4).map { "$.desired.slots[\($0)].minor" })
  }

  @Test func valuesEveryDeviceCanTakePass() throws {
    let preflight = TemplatePreflight(
      profile: try Self.loaded(name: "a-{{address_hex}}"), resolver: DesiredResolver(urlCheck: testURLCheck))
    #expect(preflight.problems(addresses: Self.addresses).isEmpty)
  }
}
