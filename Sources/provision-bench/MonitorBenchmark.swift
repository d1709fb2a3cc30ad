import Foundation
import Glibc
import JSON
import OwnThreads

/// `provision-bench monitor` (the monitor's CPU at scale): `beacon-provision monitor` watching 10,000
/// simulated devices that advertise at 1 Hz, run as the operator runs it — the release binary in its own
/// process, the simulated fleet in real time, every event printed as a JSON line — for `PROVISION_BENCH_SCAN`
/// seconds (default 30). 100 of the devices stop advertising halfway, so exits are timed too.
///
/// It prints the process's CPU time (user + system) as a share of one core over its wall time, goal ≤ 25 %
/// — note the simulated radio generating 10,000 advertisements a second runs in the same process and is
/// counted — and how late events reached standard output against their own time stamp (enter at the
/// start, exit after the 3 s exit timeout), goal ≤ 2 s. Goals are printed, never asserted.
///
/// Needs the release `beacon-provision` next to this benchmark: `swift build -c release`.
enum MonitorBenchmark {
  static let devices = 10_000
  static let leaving = 100

  static func run() async throws {
    let scan = ProcessInfo.processInfo.environment["PROVISION_BENCH_SCAN"].flatMap(Double.init) ?? 30
    let binary = BenchWorkspace.releaseCLI()
    let folder = try BenchWorkspace.folder("monitor")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try write(folder: folder, leaveAt: scan / 2)

    let arguments = [
      "monitor", "--adapter", "sim:\(folder)/fleet.json", "--events", folder + "/events.json", "--jsonl",
      "--duration", String(scan), "--state-dir", folder + "/state",
    ]
    let start = ContinuousClock.now
    let result = try await BlockingIO.run { () -> (status: Int32, cpu: Double, lags: [String: [Double]]) in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      // Each line's arrival against the event's own time ("at"): how far behind real time the monitor is.
      var lags: [String: [Double]] = [:]
      var pending = Data()
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      while true {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        let now = Date()
        while let newline = pending.firstIndex(of: 0x0A) {
          let line = pending[pending.startIndex..<newline]
          pending = Data(pending[pending.index(after: newline)...])
          guard let object = (try? JSONParser.parse(line))?.objectValue,
            let kind = object["kind"]?.stringValue,
            let at = object["at"]?.stringValue.flatMap(formatter.date)
          else { continue }
          lags[kind, default: []].append(now.timeIntervalSince(at))
        }
      }
      process.waitUntilExit()
      var usage = rusage()
      getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
      let cpu =
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        / 1e6
      return (process.terminationStatus, cpu, lags)
    }
    let wall = (ContinuousClock.now - start) / .seconds(1)
    func lag(_ kind: String) -> String {
      let values = (result.lags[kind] ?? []).sorted()
      guard let worst = values.last else { return "\(kind): none" }
      return String(
        format: "%@ ×%d late by median %.2f s, max %.2f s", kind, values.count, values[values.count / 2], worst)
    }
    print(
      "monitor of \(devices) devices at 1 Hz (\(leaving) leave halfway), \(FormatSeconds.text(scan)) s: exit \(result.status), "
        + String(
          format: "CPU %.1f s in %.1f s wall = %.0f %% of one core (goal ≤ 25 %%)", result.cpu, wall,
          100 * result.cpu / wall))
    print("events on time (goal ≤ 2 s): \(lag("enter")); \(lag("exit"))")
  }

  static func address(_ i: Int) -> String { String(format: "DD:36:00:00:%02X:%02X", i >> 8, i & 0xFF) }

  static func write(folder: String, leaveAt: Double) throws {
    var entries: [String] = []
    for i in 0..<devices {
      let presence = i < leaving ? #", "presence": [{"from": 0, "to": \#(leaveAt)}]"# : ""
      entries.append(
        #"{"address": "\#(address(i))", "kind": "iBeacon", "intervalMs": 1000, "rssi": {"mean": -60, "spread": 4}, "#
          + #""iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": \#(i)}\#(presence)}"#)
    }
    try #"{"version": 1, "devices": [\#(entries.joined(separator: ",\n"))]}"#.write(
      toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    try
      #"{"version": 1, "defaults": {"exitTimeout": 3}, "events": [{"name": "in", "trigger": "enter"}, {"name": "out", "trigger": "exit"}]}"#
      .write(toFile: folder + "/events.json", atomically: true, encoding: .utf8)
  }
}
