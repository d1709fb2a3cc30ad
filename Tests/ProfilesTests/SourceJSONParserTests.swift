import BeaconCore
import Testing

@testable import Profiles

@Suite(.timeLimit(.minutes(1))) struct SourceJSONParserTests {
  func parse(_ text: String) throws(SourceJSONSyntaxError) -> SourceJSON { try SourceJSONParser.parse(Array(text.utf8)) }

  @Test func recordsLineAndColumnOfEveryValueAndKey() throws {
    let json = try parse("{\n  \"a\": [1, \"x\"],\n  \"é\": {\"b\": true}\n}")
    guard case .object(let members) = json.kind else { Issue.record("not an object"); return }
    #expect(members[0].keyPosition == SourcePosition(line: 2, column: 3, offset: 4))
    #expect(members[0].value.position.line == 2 && members[0].value.position.column == 8)
    guard case .array(let items) = members[0].value.kind else { Issue.record("not an array"); return }
    #expect(items[1].position.column == 12)
    #expect(items[1].kind == .string("x"))
    // Columns count characters, not UTF-8 bytes: "é" is two bytes but one column.
    #expect(members[1].value.position.column == 8)
    #expect(json["é"]?["b"]?.kind == .bool(true))
  }

  @Test func keepsTheExactTextOfNumbers() throws {
    let json = try parse("[1, 1.0, -0.5e2, 18446744073709551616]")
    guard case .array(let items) = json.kind else { return }
    #expect(items.map(\.kind) == [
      .number(1, text: "1"), .number(1, text: "1.0"), .number(-50, text: "-0.5e2"),
      .number(18_446_744_073_709_551_616, text: "18446744073709551616"),
    ])
  }

  @Test func decodesEscapesIncludingSurrogatePairs() throws {
    #expect(try parse(#""a\"\\\/\n\u00e9\ud83d\ude00""#).kind == .string("a\"\\/\né😀"))
  }

  @Test(arguments: [
    ("{\"a\": 1,}", "1:9: expected a quoted key (JSON has no comments or trailing commas)"),
    ("{\"a\" 1}", "1:6: expected ':' after key \"a\""),
    ("[1 2]", "1:4: expected ',' or ']' in array"),
    ("{\n  \"a\": tru\n}", "2:8: invalid literal: expected 'true'"),
    ("\"abc", "1:5: unterminated string"),
    ("[01]", "1:4: invalid number: leading zero"),
    ("{} x", "1:4: unexpected text after the JSON value"),
    ("", "1:1: unexpected end of file: expected a value"),
    ("\"\\ud800\"", "1:8: unpaired surrogate in \\u escape"),
  ])
  func reportsWhereSyntaxBreaks(_ input: String, _ expected: String) {
    #expect(throws: SourceJSONSyntaxError.self) { try parse(input) }
    do { _ = try parse(input) } catch { #expect(error.description == expected) }
  }

  @Test func capsNestingInsteadOfOverflowingTheStack() {
    let deep = String(repeating: "[", count: 100_000)
    do {
      _ = try parse(deep)
      Issue.record("parsed")
    } catch {
      #expect(error.message.contains("nesting deeper than 256"))
    }
  }

  @Test func randomBytesNeverCrashTheParser() {
    var rng = SeededGenerator(seed: 7)
    let alphabet = Array("{}[]:,\"\\ 0123456789-+.eEtrufalsn\n\u{00}é".utf8)
    for _ in 0..<5000 {
      let n = Int(rng.next() % 40)
      let bytes = (0..<n).map { _ in rng.next() % 4 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[Int(rng.next() % UInt64(alphabet.count))] }
      _ = try? SourceJSONParser.parse(bytes)
    }
  }
}
