import Foundation

/// `provision-bench audit-connect-scaling`: `beacon-provision audit --connect --parallel N` on a simulated
/// fleet whose first three devices fail on their own — one busy, one with another password, one dropping
/// every link, as some always do at a real site — run as its own process (`ScalingBenchmark`): 1 link, 5
/// links on the simulated adapter's 5, 16 links on an adapter configured for 16; at 200 and 1,000 devices
/// (`PROVISION_BENCH_COUNTS`); a 1 s scan. Each device is read through the `plan` path; the three faulty
/// ones are the 3 failed. Goals (printed, never asserted): speed-up ≥ 0.95 × links, and
/// `--parallel 5` on 200 devices ≥ 4.5× faster than `--parallel 1`. The busy device's retries (audit
/// waits 1 s, then 4 s) end about 5 s after the start whatever the links, a floor under short runs.
/// `PROVISION_BENCH_FAULTY=0` runs the same on a fleet without the three (0 devices failed: the goal's own
/// condition, which the faulty fleet's retries cannot show at 16 links).
///
/// Needs `beacon-provision` next to this benchmark: `swift build -c release`.
enum AuditConnectScalingBenchmark {
  static func run() async throws {
    let faulty = ProcessInfo.processInfo.environment["PROVISION_BENCH_FAULTY"] != "0"
    try await ScalingBenchmark.run(name: "audit-connect-scaling", faulty: faulty) { site, links in
      [
        "audit", site.profile, "--adapter", "sim:\(site.fleet)", "--state-dir", site.folder + "/state", "--scan", "1",
        "--connect", "--parallel", String(links), "--output", site.folder + "/audit.json", "--format", "json",
      ]
    }
  }
}
