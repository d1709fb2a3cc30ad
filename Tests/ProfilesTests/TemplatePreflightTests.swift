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

  @Test func valuesEveryDeviceCanTakePass() throws {
    let preflight = TemplatePreflight(
      profile: try Self.loaded(name: "a-{{address_hex}}"), resolver: DesiredResolver(urlCheck: testURLCheck))
    #expect(preflight.problems(addresses: Self.addresses).isEmpty)
  }
}
