import BeaconCore
import KBeacon
import Testing

@testable import Profiles

/// Hostile-input review, "No size caps": a CSV inventory with an unterminated quote was read as one huge field and
/// reported as "2 fields where the header has 3" plus a false "the profile names none" per template; error
/// lines quoted a 1 MB number or a 12 MB name in full. (The file-size caps themselves are the CLI's
/// `InputFile`: see CLITests' InputFileSizeTests.)
@Suite("Oversize values and unterminated quotes", .timeLimit(.minutes(1))) struct OversizeInputTests {
  static let profile =
    #"{"version": 1, "inventory": "i.csv", "desired": {"name": "{{room}}", "slots": [{"slot": 0, "type": "ibeacon", "minor": "{{minor}}"}]}}"#

  func problems(csv: String) -> [String] {
    do {
      _ = try LoadedProfile.load(
        file: "p.json", read: { $0.hasSuffix(".csv") ? Array(csv.utf8) : Array(Self.profile.utf8) },
        urlCheck: testURLCheck)
      return []
    } catch {
      return error.all.map(\.description)
    }
  }

  @Test func anUnterminatedQuoteIsReportedWhereItBegins() {
    let csv = "address,room,minor\nDD:34:02:06:D1:01,Kitchen,1\nDD:34:02:06:D1:02,\"Hall,2\nDD:34:02:06:D1:03,Attic,3\n"
    #expect(
      problems(csv: csv) == [
        "i.csv:3:1: $: a quoted field that begins on line 3 has no closing quote (the file ends inside it) "
          + "(allowed: a field in double quotes ends with a double quote; a quote inside one is written \"\")"
      ])
  }

  @Test func aClosedQuoteAcrossLinesIsStillOneField() {
    let csv = "address,room,minor\nDD:34:02:06:D1:01,\"Hall\nnorth\",1\n"
    #expect(problems(csv: csv).isEmpty)
    let (records, open) = CSVReader.records(csv)
    #expect(open == nil && records.count == 2 && records[1].fields == ["DD:34:02:06:D1:01", "Hall\nnorth", "1"])
  }

  @Test func aHugeNumberIsQuotedShort() throws {
    let digits = String(repeating: "9", count: 1 << 20)
    let text = #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": \#(digits)}]}}"#
    let all = diagnostics(text)
    #expect(all.count == 1)
    let line = try #require(all.first)
    #expect(line.utf8.count < 300, "\(line.prefix(400))")
    #expect(
      line.contains("$.desired.slots[0].major: \(String(repeating: "9", count: 64))… (1048576 bytes) is out of range"),
      "\(line)")
  }

  /// A 3 MB name (the report was of a 12 MB one; a quarter of it proves the same and keeps the test well inside
  /// its time limit under AddressSanitizer, where the 12 MB parse once ran past it under load).
  @Test func aHugeNameAndAHugeKeyAreQuotedShort() throws {
    let name = String(repeating: "n", count: 3 << 20)
    let all = diagnostics(
      #"{"version": 1, "desired": {"name": "\#(name)", "\#(String(repeating: "k", count: 1 << 20))": 1}}"#)
    #expect(all.count == 2)
    for line in all { #expect(line.utf8.count < 600, "\(line.prefix(700))") }
    #expect(
      all.contains {
        $0.contains("\"\(String(repeating: "n", count: 64))… (3145728 bytes)\" is 3145728 bytes long in UTF-8")
      })
    #expect(all.contains { $0.contains("unknown key \"\(String(repeating: "k", count: 64))… (1048576 bytes)\"") })
  }

  @Test func echoedTextIsEscapedAndCut() {
    #expect("short\u{1B}".echoed == "short\\u{1B}")
    #expect(String(repeating: "é", count: 64).echoed == String(repeating: "é", count: 64))
    #expect(String(repeating: "é", count: 65).echoed == String(repeating: "é", count: 64) + "… (130 bytes)")
  }
}
