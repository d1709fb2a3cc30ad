import Testing

@testable import Profiles

/// A profile that selects by a name glob and renames its devices out of that glob would select none of
/// them on the next run; `profile check` warns (with the name field's location).
@Suite("Rename out of the selection", .timeLimit(.minutes(1))) struct RenameSelectionCheckTests {
  static func loaded(_ text: String) throws -> LoadedProfile {
    try LoadedProfile.load(file: "p.json", read: { _ in Array(text.utf8) }, urlCheck: testURLCheck)
  }

  @Test func aNewNameOutsideTheGlobIsWarnedAbout() throws {
    let p = try Self.loaded(#"{"version": 1, "select": {"name": "KBPro_*"}, "desired": {"name": "aisle-7"}}"#)
    let warning = try #require(RenameSelectionCheck.warning(p))
    #expect(warning.hasPrefix("p.json:1:"))
    #expect(
      warning.contains(
        "$.desired.name: warning: this profile renames devices to names such as 'aisle-7', which select.name 'KBPro_*' does not match"
      ))
  }

  @Test func aTemplatedNameIsJudgedFilledIn() throws {
    let outside = try Self.loaded(
      #"{"version": 1, "select": {"name": "KBPro_*"}, "desired": {"name": "x-{{address_hex}}"}}"#)
    #expect(RenameSelectionCheck.warning(outside)?.contains("'x-000000000000'") == true)
    let inside = try Self.loaded(
      #"{"version": 1, "select": {"name": "KBPro_*"}, "desired": {"name": "KBPro_{{address_hex}}"}}"#)
    #expect(RenameSelectionCheck.warning(inside) == nil)
  }

  @Test func noGlobOrNoNameNoWarning() throws {
    #expect(RenameSelectionCheck.warning(try Self.loaded(#"{"version": 1, "desired": {"name": "aisle-7"}}"#)) == nil)
    #expect(
      RenameSelectionCheck.warning(
        try Self.loaded(#"{"version": 1, "select": {"name": "KBPro_*"}, "desired": {"measuredPower": -59}}"#)) == nil)
  }
}
