import Testing

@testable import NordicDFU

/// A DFU package's `manifest.json` refused in the one error shape of every file the tool reads
/// (`FILE:LINE:COL: $.path: message`), a misspelt image key with the closest known one.
@Suite(.timeLimit(.minutes(1))) struct ManifestErrorTests {
  static func error(_ text: String) -> String? {
    do {
      _ = try Manifest(json: Array(text.utf8))
      return nil
    } catch {
      return error.description
    }
  }

  @Test func aMisspeltImageKeyNamesItsPlaceAndTheClosestKey() {
    let text = "{\"manifest\": {\n  \"aplication\": {\"bin_file\": \"app.bin\", \"dat_file\": \"app.dat\"}}}"
    #expect(
      Self.error(text)
        == #"manifest.json:2:3: $.manifest.aplication: unknown key "aplication" — did you mean "application"? "#
        + "(allowed: softdevice_bootloader, softdevice, bootloader, application)")
  }

  @Test func brokenJSONAndAMissingFileNameSayWhere() {
    #expect(
      Self.error("{\"manifest\": {\n  \"application\": }}")?.hasPrefix("manifest.json:2:18: $: not valid JSON: ")
        == true)
    #expect(
      Self.error(#"{"manifest": {"application": {"dat_file": "app.dat"}}}"#)
        == "manifest.json:1:30: $.manifest.application.bin_file: expected the image's file name")
    #expect(
      (try? Manifest(json: Array(#"{"manifest": {"application": {"bin_file": "a.bin", "dat_file": "a.dat"}}}"#.utf8)))
        != nil)
  }
}
