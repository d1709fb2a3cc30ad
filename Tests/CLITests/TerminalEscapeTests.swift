import BeaconCore
import Foundation
import InfoManager
import Testing

@testable import BeaconProvisionCLI

/// No terminal escape injection: a device nearby advertises the name `ESC ]0;pwned BEL ESC [2J`
/// (retitle the terminal, clear the screen). The built CLI's `scan` and `plan` print it with its control
/// characters shown as `\u{XX}` (`TerminalText`), and no ESC, BEL or other control byte reaches the
/// operator's terminal; `--json` keeps the exact name (JSON escapes it by its own rules). The renderings of
/// `firmware catalog` (a server's note), `resolve` (a server's names) and the log lines escape the same way.
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct TerminalEscapeTests {
  static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J"
  static let shown = #"\u{1B}]0;pwned\u{07}\u{1B}[2J"#
  static let address = "DD:34:02:06:EE:01"

  /// A folder with a fleet file whose KBeacon Pro is named `hostile`, and a profile that renames it.
  static func site() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escape-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try #"""
    {"version": 1, "devices": [
      {"address": "\#(address)", "kind": "kbeaconPro", "name": "\u001b]0;pwned\u0007\u001b[2J", "intervalMs": 100,
       "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}}]}
    """#.write(toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    try #"{"version": 1, "select": {"addresses": ["\#(address)"]}, "desired": {"name": "clean"}}"#
      .write(toFile: folder + "/profile.json", atomically: true, encoding: .utf8)
    return folder
  }

  /// Every control byte of `text` other than a line feed.
  static func controlBytes(_ text: String) -> [UInt8] {
    text.utf8.filter { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }
  }

  @Test func scanShowsAnEscapeLadenNameEscapedAndJSONKeepsItExact() async throws {
    let folder = try Self.site()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let common = ["scan", "--adapter", "sim:\(folder)/fleet.json", "--duration", "2", "--state-dir", folder + "/state"]
    let plain = try await CLIProcess.run(common)
    #expect(plain.status == 0, "\(plain.errors)")
    #expect(plain.output.contains(Self.address + "  " + Self.shown), "\(plain.output)")
    #expect(Self.controlBytes(plain.output).isEmpty, "\(plain.output.debugDescription)")
    #expect(Self.controlBytes(plain.errors).isEmpty, "\(plain.errors.debugDescription)")
    let json = try await CLIProcess.run(common + ["--json"])
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(json.output.utf8))
    #expect(records.first { $0.address.description == Self.address }?.name == Self.hostile)
  }

  @Test func planShowsTheDevicesCurrentNameEscaped() async throws {
    let folder = try Self.site()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let result = try await CLIProcess.run([
      "plan", folder + "/profile.json", "--adapter", "sim:\(folder)/fleet.json", "--scan", "2", "--state-dir",
      folder + "/state",
    ])
    #expect(result.status == 0, "\(result.output)\n\(result.errors)")
    #expect(result.output.contains(Self.shown), "\(result.output)")
    #expect(Self.controlBytes(result.output).isEmpty, "\(result.output.debugDescription)")
    #expect(Self.controlBytes(result.errors).isEmpty, "\(result.errors.debugDescription)")
  }

  @Test func theHelperEscapesC0DelAndC1AndKeepsTheRest() {
    #expect(TerminalText.escaped(Self.hostile) == Self.shown)
    #expect(TerminalText.escaped("a\u{0}b\tc\nd\u{7F}e\u{9B}2Jf") == #"a\u{00}b\u{09}c\u{0A}d\u{7F}e\u{9B}2Jf"#)
    #expect(TerminalText.escaped("Gänseblümchen 🐝 \\ x") == "Gänseblümchen 🐝 \\ x")
    #expect(TerminalText.escaped("one\ntwo\r", keepingLineBreaks: true) == "one\ntwo\\u{0D}")
  }

  @Test func serverTextInResolveAndTheLogIsEscaped() throws {
    let json = #"""
      {"id": "B10001", "source": "blukii", "state": "RESOLVED",
       "infoPoint": {"id": "7", "name": "\u001b[2Jpoint", "description": "line\u0007", "deactivated": false,
                     "deactivatedByAdmin": false, "outputInfos": []}}
      """#
    let result = try JSONDecoder().decode(ResolveResult.self, from: Data(json.utf8))
    let lines = ResolveText.lines([ResolveRow(result: result, module: nil)])
    #expect(lines.contains { $0.hasSuffix(#"  \u{1B}[2Jpoint"#) }, "\(lines)")
    #expect(lines.contains(#"    line\u{07}"#), "\(lines)")
    #expect(lines.allSatisfy { Self.controlBytes($0).isEmpty })
    let line = StderrLogHandler.line(
      time: Date(), level: .warning, label: "x", message: "name \(Self.hostile)",
      metadata: ["device": "\(Self.hostile)"])
    #expect(line.hasSuffix("x: name \(Self.shown) device=\(Self.shown)"), "\(line)")
  }

  /// An error that quotes the profile (an unknown key spelled with escapes) reaches standard error escaped.
  @Test func anErrorQuotingAProfileKeyIsEscaped() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("escape-\(UUID().uuidString).json").path
    try #"{"version": 1, "desired": {"\u001b[2Jname": "x"}}"#.write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    let result = try await CLIProcess.run(["profile", "check", file])
    #expect(result.status != 0)
    #expect(result.errors.contains(#"unknown key "\u{1B}[2Jname""#), "\(result.errors)")
    #expect(Self.controlBytes(result.errors).isEmpty, "\(result.errors.debugDescription)")
  }

  /// `audit` to standard output (Markdown) lists the device by its escaped name.
  @Test func auditsMarkdownOnStandardOutputIsEscaped() async throws {
    let folder = try Self.site()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let result = try await CLIProcess.run([
      "audit", folder + "/profile.json", "--adapter", "sim:\(folder)/fleet.json", "--scan", "2", "--state-dir",
      folder + "/state",
    ])
    // Markdown's own marks in the name are escaped too (`[` would start a link).
    let markdown = Self.shown.replacingOccurrences(of: "[", with: #"\["#).replacingOccurrences(of: "]", with: #"\]"#)
    #expect(result.output.contains("**\(Self.address)** \(markdown) — drifted"), "\(result.output)\n\(result.errors)")
    #expect(Self.controlBytes(result.output).isEmpty, "\(result.output.debugDescription)")
  }
}
