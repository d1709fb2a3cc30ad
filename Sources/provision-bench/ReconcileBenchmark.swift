import Foundation
import Glibc
import OwnThreads

/// `provision-bench reconcile` (the service's cost at steady state): `beacon-provision reconcile` keeping
/// 1,000 simulated KBeacon Pros (the audit benchmark's fleet and profile, `AuditBenchmark.write`: iBeacon +
/// System every second) converged, run as the operator runs it — the release binary in its own process, the
/// simulated fleet in real time.
///
/// First `reconcile --once --parallel 5`: the first pass connects to every device (each is compliant, so it
/// is a connected check that writes nothing); its wall time is printed. Then `reconcile` with 10 s windows for
/// `PROVISION_BENCH_SCAN` seconds (default 120), on the schedule that pass left: nothing is due, so what is
/// measured is the service at rest — scanning continuously and judging 1,000 devices' advertisements every
/// window. It prints that process's CPU time over its wall time (goal ≤ 5 % of one core; the simulated radio
/// generating 1,000 devices' advertisements runs in the same process and is counted) and its resident memory
/// sampled every 10 s (goal: flat). Goals are printed, never asserted.
///
/// Needs the release `beacon-provision` next to this benchmark: `swift build -c release`.
enum ReconcileBenchmark {
  static func run() async throws {
    let seconds = ProcessInfo.processInfo.environment["PROVISION_BENCH_SCAN"].flatMap(Double.init) ?? 120
    let binary = BenchWorkspace.releaseCLI()
    let folder = try BenchWorkspace.folder("reconcile")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try AuditBenchmark.write(folder: folder)
    let common = [
      "reconcile", folder + "/site.json", "--adapter", "sim:\(folder)/fleet.json", "--window", "10", "--parallel",
      "5", "--state-dir", folder + "/state",
    ]

    let first = try await BlockingIO.run { try Self.child(binary, common + ["--once"], for: nil) }
    print(
      String(
        format: "reconcile --once of %d compliant devices (5 links): exit %d, %.1f s wall, CPU %.1f s",
        AuditBenchmark.devices, first.status, first.wall, first.cpu))
    let steady = try await BlockingIO.run { try Self.child(binary, common, for: seconds) }
    let rss = steady.rss.map { String(format: "%.0f", $0) }.joined(separator: " ")
    print(
      String(
        format: "reconcile at rest, %@ s of 10 s windows: exit %d, CPU %.1f s in %.1f s wall = %.1f %% of one core "
          + "(goal ≤ 5 %%)", FormatSeconds.text(seconds), steady.status, steady.cpu, steady.wall,
        100 * steady.cpu / steady.wall))
    print("resident memory every 10 s, MB (goal: flat): \(rss)")
  }

  /// Runs the CLI with `arguments` until it exits, or for `seconds` and then SIGTERM; its CPU time (the
  /// children's rusage before and after), wall time and resident memory sampled every 10 s.
  static func child(_ binary: String, _ arguments: [String], for seconds: Double?) throws
    -> (status: Int32, wall: Double, cpu: Double, rss: [Double])
  {
    let before = CLIScalingRun.childrenCPUSeconds()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    (process.standardOutput, process.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
    let start = Date()
    try process.run()
    var rss: [Double] = []
    if let seconds {
      while Date().timeIntervalSince(start) < seconds, process.isRunning {
        Thread.sleep(forTimeInterval: min(10, max(0, seconds - Date().timeIntervalSince(start))))
        if let megabytes = residentMegabytes(process.processIdentifier) { rss.append(megabytes) }
      }
      kill(process.processIdentifier, SIGTERM)
    }
    process.waitUntilExit()
    return (
      process.terminationStatus, Date().timeIntervalSince(start), CLIScalingRun.childrenCPUSeconds() - before, rss
    )
  }

  /// `VmRSS` of /proc/PID/status, in MB.
  static func residentMegabytes(_ pid: Int32) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return nil }
    return kilobytes / 1024
  }
}
