import Foundation
import Presence
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// `monitor-state.json` that cannot be used is warned about in the one error shape of every file the tool
/// reads (`FILE:LINE:COL: $.path: message`), set aside as `.bad`, and the monitor starts afresh.
@Suite(.timeLimit(.minutes(1))) struct MonitorStateFileTests {
  static func warning(for text: String) throws -> String? {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let file = MonitorStateFile(stateDirectory: folder)
    try text.write(toFile: file.path, atomically: true, encoding: .utf8)
    let warnings = Mutex<[String]>([])
    #expect(file.load { line in warnings.withLock { $0.append(line) } } == nil)
    #expect(FileManager.default.fileExists(atPath: file.path + ".bad"))
    return warnings.withLock { $0.first.map { $0.replacingOccurrences(of: file.path, with: "STATE") } }
  }

  @Test func brokenJSONAndAWrongTypeSayWhere() throws {
    let broken = try Self.warning(for: "{\n  \"schema\": \"beacon-provision/monitor-state/v1\",\n  \"devices\": [,\n}")
    #expect(broken?.hasPrefix("STATE:3:15: $: not valid JSON: ") == true, "\(broken ?? "no warning")")
    let wrong = try Self.warning(for: #"{"schema": 1, "devices": [], "tags": [], "fired": [], "inside": {}}"#)
    #expect(
      wrong?.hasPrefix("STATE:1:12: $.schema: expected a string, found an integer; moved to STATE.bad") == true,
      "\(wrong ?? "no warning")")
  }

  @Test func aSavedStateReadsBack() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let file = MonitorStateFile(stateDirectory: folder)
    var state = PresenceState()
    state.inside = ["lobby": ["AA:BB:CC:DD:EE:FF"]]
    try file.save(state)
    #expect(file.load { _ in } == state)
  }
}
