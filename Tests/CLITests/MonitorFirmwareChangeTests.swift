import Foundation
import Testing

/// `firmware-changed` end to end on the simulated fleet: a monitor run records each device's advertised
/// firmware (the KKM System frame) in its state directory; `dfu update` installs 5.30 on one device, whose
/// System frame then carries the new version; the next monitor run fires `firmware-changed` for that device
/// alone, from 5.12 to 5.30. (The simulated System frame used to carry the fleet file's version whatever a
/// DFU installed, so the event could not be provoked.)
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct MonitorFirmwareChangeTests {
  @Test func aDFUShowsAsFirmwareChangedInTheNextMonitorRun() async throws {
    let folder = NSTemporaryDirectory() + "monitor-fw-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let events = folder + "/events.json"
    try #"{"version": 1, "events": [{"name": "fw", "trigger": "health", "health": ["firmware"]}]}"#
      .write(toFile: events, atomically: true, encoding: .utf8)
    let monitor = [
      "monitor", "--adapter", "sim", "--state-dir", folder + "/state", "--events", events, "--jsonl", "--duration", "4",
    ]
    let first = try await CLIProcess.run(monitor)
    #expect(first.status == 0, "\(first.errors)")
    #expect(!first.output.contains("firmware-changed"), "\(first.output)")
    let package = try DFUFleetPackages.application(version: 530)
    defer { try? FileManager.default.removeItem(atPath: package) }
    let update = try await CLIProcess.run([
      "dfu", "update", "--package", package, "--adapter", "sim", "--scan", "3", "--address", "DD:34:02:06:D1:02",
      "--state-dir", folder + "/state",
    ])
    #expect(update.status == 0, "\(update.errors)")
    let second = try await CLIProcess.run(monitor)
    let fired = try second.output.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
    .filter { $0["kind"] as? String == "firmware-changed" }
    #expect(fired.count == 1, "\(second.output)\n\(second.errors)")
    let device = fired.first?["device"] as? [String: Any]
    #expect(device?["address"] as? String == "DD:34:02:06:D1:02")
    #expect(fired.first?["previous"] as? String == "5.12" && device?["firmware"] as? String == "5.30", "\(fired)")
  }
}
