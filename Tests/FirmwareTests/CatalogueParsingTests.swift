import Firmware
import JSON
import KBeacon
import Profiles
import Testing

/// The KKM catalogue format of docs/protocols/kbeacon.md §11 — an object keyed by `hver` of arrays of
/// `{appVersion, appFileName, note}` — plus our `sha256` / `size`, decoded from bytes, and refusals that
/// name line, column and JSON path.
@Suite("Firmware catalogue parsing", .timeLimit(.minutes(1))) struct CatalogueParsingTests {
  static func decode(_ text: String) throws(JSONDiagnostic) -> FirmwareCatalogue {
    try FirmwareCatalogue.decode(Array(text.utf8), model: "KBPro", source: "KBPro.json")
  }

  @Test func kkmShapeWithOurExtension() throws {
    // Two hardware versions; the second entry of V1.0 carries sha256 (SHA-256 of "abc", FIPS 180-2 B.1) and size.
    let text = """
      {"V1.0": [{"appVersion": "V5.20", "appFileName": "KBPro_V520.zip", "note": "first"},
                {"appVersion": "V5.30", "appFileName": "KBPro_V530.zip", "note": "fix",
                 "sha256": "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", "size": 12345}],
       "V2.0": []}
      """
    let catalogue = try Self.decode(text)
    #expect(catalogue.hardwareVersions == ["V1.0", "V2.0"])
    let entries = catalogue.entries(hardware: "V1.0")
    #expect(entries.map(\.appVersion) == ["V5.20", "V5.30"])
    #expect(entries[0].sha256 == nil && entries[0].size == nil && entries[0].note == "first")
    #expect(entries[1].sha256Hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(entries[1].size == 12345)
    #expect(catalogue.entries(hardware: "V2.0").isEmpty)
    #expect(catalogue.entries(hardware: "V9.9").isEmpty)
  }

  @Test func errorsNameLineColumnAndPath() {
    // line 2, column 18 is the number 5.3 (the 2-space indent, then `{"appVersion": `).
    let text = "{\"V1.0\": [\n  {\"appVersion\": 5.3, \"appFileName\": \"a.zip\"}]}"
    #expect(
      throws: JSONDiagnostic(
        file: "KBPro.json", position: SourcePosition(line: 2, column: 18, offset: 28),
        path: JSONPath([.key("V1.0"), .index(0), .key("appVersion")]), message: "expected a string, found a number")
    ) {
      try Self.decode(text)
    }
    do {
      _ = try Self.decode(text)
    } catch {
      #expect(error.description == #"KBPro.json:2:18: $["V1.0"][0].appVersion: expected a string, found a number"#)
    }
  }

  @Test func syntaxErrorsKeepTheParsersPosition() {
    do {
      _ = try Self.decode("{\"V1.0\": [}")
      Issue.record("accepted")
    } catch {
      #expect(error.position?.line == 1 && error.position?.column == 11)
      #expect(error.path == .root)
      #expect(error.description.hasPrefix("KBPro.json:1:11: $: not valid JSON: "), "\(error)")
    }
  }

  @Test(arguments: [
    (#"[]"#, "expected an object keyed by hardware version"),
    (#"{"V1.0": {}}"#, "expected an array of {appVersion, appFileName, note}, found an object"),
    (#"{"V1.0": [{"appFileName": "a.zip"}]}"#, "missing \"appVersion\""),
    (#"{"V1.0": [{"appVersion": "V5.x", "appFileName": "a.zip"}]}"#, "is not a version like V5.30"),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "../a.zip"}]}"#, "has a path separator"),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": ".."}]}"#, "has \"..\""),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "a\\b.zip"}]}"#, "has a path separator"),
    // a combining mark after the separator or the dot: one grapheme to Swift, still a "/" or ".." in the URL
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "a/\u0301b.zip"}]}"#, "has a path separator"),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "..\u0301"}]}"#, "has \"..\""),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "a\u00a0b.zip"}]}"#, "has a space"),
    // the cache's own files beside the package: its record would overwrite it, or the lock be replaced
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "package.json"}]}"#, "keeps for itself"),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": ".lock"}]}"#, "keeps for itself"),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "a.zip.part"}]}"#, "keeps for itself"),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "a.zip", "sha256": "abc"}]}"#, "expected 64 hex digits"),
    (#"{"V1.0": [{"appVersion": "V5.1", "appFileName": "a.zip", "size": -1}]}"#, "expected a whole number of bytes"),
    (
      #"{"V1.0": [{"appVersion": "V5.1", "appFileName": "a.zip"}, {"appVersion": "5.01", "appFileName": "b.zip"}]}"#,
      "version 5.01 is listed twice (also as V5.1)"
    ),
    (#"{"V1.0": [], "V1.0": []}"#, "hardware version given twice"),
  ])
  func refusals(_ text: String, _ expected: String) {
    do {
      _ = try Self.decode(text)
      Issue.record("accepted \(text)")
    } catch {
      #expect(error.message.contains(expected), "\(error)")
      #expect(error.position != nil)
    }
  }
}
