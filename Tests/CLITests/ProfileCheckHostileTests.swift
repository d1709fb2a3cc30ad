import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `profile check` on the profiles that once killed the process with SIGILL (found by fuzzing): it must report
/// each problem with file, line:column and JSON path, and exit 1 — never trap.
@Suite("profile check on hostile profiles", .timeLimit(.minutes(2)))
struct ProfileCheckHostileTests {
  /// Writes `text` to a fresh file, runs `profile check` on it in process, and returns the failure text.
  func check(_ text: String) throws -> String? {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bp-check-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("hostile.json").path
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    let command = try ProfileCheckCommand.parse([file])
    do {
      try command.run()
      return nil
    } catch let failure as CLIFailure {
      #expect(failure.exitCode == 1)
      return failure.message.replacingOccurrences(of: file, with: "hostile.json")
    }
  }

  @Test func aHugeIntervalIsReportedAtItsJSONPath() throws {
    let message = try check(
      #"""
      {"version": 1,
       "desired": {"slots": [{"slot": 0, "type": "ibeacon", "intervalMs": 1e300}]}}
      """#)
    #expect(
      message == """
        hostile.json:2:69: $.desired.slots[0].intervalMs: 1e+300 is out of range (allowed: 100…10000)
        1 error in the profile; nothing was sent to any device
        """)
  }

  @Test func aNumberBeyondDoubleAndAHugeIntegerAreReportedWithTheirPositions() throws {
    let message = try check(
      #"""
      {"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": 1e300}]}}
      """#)
    #expect(
      message?.hasPrefix("hostile.json:1:78: $.desired.slots[0].major: 1e300 is out of range (allowed: 0…65535)")
        == true)
    let beyond = try check(#"{"version": 1, "desired": {"measuredPower": -1e400}}"#)
    #expect(
      beyond?.hasPrefix("hostile.json:1:45: $.desired.measuredPower: -1e400 is out of range (allowed: -100…10)") == true
    )
  }
}
