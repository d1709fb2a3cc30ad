import BeaconCore
import Testing

@testable import JSON

/// The one JSON parser (RFC 8259): positions for profile files, `JSONValue` for device answers
/// (docs/protocols/kbeacon.md §4.2, §6), and typed errors that say where the text broke.
@Suite("JSON parser", .timeLimit(.minutes(2)))
struct JSONParserTests {
  func parse(_ text: String) throws(JSONSyntaxError) -> SourceJSON {
    try JSONParser.parseWithPositions(Array(text.utf8))
  }

  @Test func recordsLineAndColumnOfEveryValueAndKey() throws {
    let json = try parse("{\n  \"a\": [1, \"x\"],\n  \"é\": {\"b\": true}\n}")
    guard case .object(let members) = json.kind else {
      Issue.record("not an object")
      return
    }
    #expect(members[0].keyPosition == SourcePosition(line: 2, column: 3, offset: 4))
    #expect(members[0].value.position.line == 2 && members[0].value.position.column == 8)
    guard case .array(let items) = members[0].value.kind else {
      Issue.record("not an array")
      return
    }
    #expect(items[1].position.column == 12)
    #expect(items[1].kind == .string("x"))
    // Columns count characters, not UTF-8 bytes: "é" is two bytes but one column.
    #expect(members[1].value.position.column == 8)
    #expect(json["é"]?["b"]?.kind == .bool(true))
  }

  @Test func keepsTheExactTextOfNumbers() throws {
    let json = try parse("[1, 1.0, -0.5e2, 18446744073709551616]")
    guard case .array(let items) = json.kind else { return }
    #expect(
      items.map(\.kind) == [
        .number(1, text: "1"), .number(1, text: "1.0"), .number(-50, text: "-0.5e2"),
        .number(18_446_744_073_709_551_616, text: "18446744073709551616"),
      ])
  }

  @Test func decodesEscapesIncludingSurrogatePairs() throws {
    #expect(try parse(#""a\"\\\/\n\u00e9\ud83d\ude00""#).kind == .string("a\"\\/\né😀"))
    #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
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
    ("\"\\u+041\"", "1:4: invalid \\u escape: expected four hex digits"),
    ("\"\\u-000\"", "1:4: invalid \\u escape: expected four hex digits"),
    ("[\"a\u{01}\"]", "1:4: control character in string (write it as an escape)"),
  ])
  func reportsWhereSyntaxBreaks(_ input: String, _ expected: String) {
    #expect(throws: JSONSyntaxError.self) { try parse(input) }
    do { _ = try parse(input) } catch { #expect(error.description == expected) }
  }

  /// Every malformed device answer is still refused, with where it broke.
  @Test func malformedWireJSONGivesTypedErrorsWithOffsets() {
    for bad in [#"{"a":}"#, #"{"a":1"#, "[1,]", "01", "\"\u{01}\"", "tru", "{} x", "\u{FEFF}{}"] {
      #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(bad) }
    }
    do {
      _ = try JSONParser.parse(#"{"a":1,"a":2}"#)
      Issue.record("a duplicate key parsed")
    } catch {
      #expect(error.message == "duplicate key \"a\"" && error.position.offset == 7)
    }
  }

  /// Device answers nest at most 32 deep; files 256.
  @Test func capsNestingInsteadOfOverflowingTheStack() {
    let hundred = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(hundred) }
    #expect((try? parse(hundred)) != nil)
    do {
      _ = try parse(String(repeating: "[", count: 100_000))
      Issue.record("parsed")
    } catch {
      #expect(error.message.contains("nesting deeper than 256"))
    }
  }

  /// A number's text survives however large (the reader judges its range: the model has no `Int` for it,
  /// the profile decoder calls it out of range). A byte order mark is an editor's, never a device's.
  @Test func numbersOfAnySizeAreKeptAndOnlyFilesMayStartWithAByteOrderMark() throws {
    let wire = try JSONParser.parse(#"{"maxPrd":-1e400,"advPrd":1e300}"#)
    #expect(JSONWriter.text(wire) == #"{"maxPrd":-1e400,"advPrd":1e300}"#)
    #expect(wire.objectValue?["maxPrd"]?.doubleValue == -.infinity)
    #expect(
      try parse("[-1e400]").kind
        == .array([
          SourceJSON(kind: .number(-.infinity, text: "-1e400"), position: SourcePosition(line: 1, column: 2, offset: 1))
        ]))
    #expect(try parse("1e400").typeName == "a number")
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\"a\": 1}".utf8)
    #expect(try JSONParser.parseWithPositions(bom)["a"]?.position == SourcePosition(line: 1, column: 7, offset: 9))
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(bom) }
  }

  @Test func randomBytesNeverCrashTheParser() {
    var rng = SeededGenerator(seed: 7)
    let alphabet = Array("{}[]:,\"\\ 0123456789-+.eEtrufalsn\n\u{00}é".utf8)
    for _ in 0..<5000 {
      let n = Int(rng.next() % 40)
      let bytes = (0..<n).map { _ in
        rng.next() % 4 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
      }
      _ = try? JSONParser.parseWithPositions(bytes)
      _ = try? JSONParser.parse(bytes)
    }
  }
}
