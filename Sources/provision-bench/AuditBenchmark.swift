import Foundation
import Glibc
import OwnThreads

/// `provision-bench audit`: a passive `beacon-provision audit` of a 1,000-device simulated fleet (a fleet
/// file of KBeacon Pros advertising iBeacon + System frames every second, and a profile whose inventory names
/// them all plus 10 that are not on the air), run as the operator runs it — the release binary in its own
/// process, scanning the fleet in real time for `PROVISION_BENCH_SCAN` seconds (default 5), writing the
/// HTML report. It prints the wall time against the goal (the scan time + 2 s) and the process's peak RSS
/// against its goal (300 MB). Goals are printed, never asserted.
///
/// Needs the release `beacon-provision` next to this benchmark: `swift build -c release`.
enum AuditBenchmark {
  static let devices = 1000

  static func run() async throws {
    let scan = ProcessInfo.processInfo.environment["PROVISION_BENCH_SCAN"].flatMap(Double.init) ?? 5
    let binary = BenchWorkspace.releaseCLI()
    let folder = try BenchWorkspace.folder("audit")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try write(folder: folder)

    let arguments = [
      "audit", folder + "/site.json", "--adapter", "sim:\(folder)/fleet.json", "--scan", String(scan),
      "--state-dir", folder + "/state", "--output", folder + "/audit.html", "--format", "html",
    ]
    let start = ContinuousClock.now
    // The child is waited for off the cooperative pool; its peak RSS is the children's maximum afterwards.
    let (status, megabytes) = try await BlockingIO.run { () -> (Int32, Double) in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      var usage = rusage()
      getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
      return (process.terminationStatus, Double(usage.ru_maxrss) / 1024)
    }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    let size = (try? FileManager.default.attributesOfItem(atPath: folder + "/audit.html")[.size] as? Int) ?? 0
    print(
      "passive audit of \(devices) devices (+10 missing), \(FormatSeconds.text(scan)) s scan: exit \(status), "
        + String(
          format: "%.2f s wall (goal ≤ %.0f s), peak RSS %.0f MB (goal < 300 MB), HTML report %d KB", seconds, scan + 2,
          megabytes, size / 1024))
  }

  static func address(_ i: Int) -> String { String(format: "DD:35:00:00:%02X:%02X", i >> 8, i & 0xFF) }

  static func write(folder: String) throws {
    var entries: [String] = []
    var rows = ["address,minor,tags"]
    for i in 0..<devices + 10 {
      rows.append("\(address(i)),\(i),zone-\(i % 8)")
      guard i < devices else { continue }
      entries.append(
        #"{"address": "\#(address(i))", "kind": "kbeaconPro", "name": "KB\#(i)", "intervalMs": 1000, "#
          + #""iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": \#(i)}, "#
          + #""system": {"model": 12, "batteryPercent": \#(5 + i % 95), "firmware": "5.\#(10 + i % 13)"}}"#)
    }
    try #"{"version": 1, "devices": [\#(entries.joined(separator: ",\n"))]}"#.write(
      toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    try
      #"{"version": 1, "inventory": "inventory.csv", "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": 1, "minor": "{{minor}}"}]}}"#
      .write(toFile: folder + "/site.json", atomically: true, encoding: .utf8)
  }
}

enum FormatSeconds {
  static func text(_ d: Double) -> String { Int(exactly: d).map(String.init) ?? String(d) }
}
