/// `provision-bench apply-scaling`: `beacon-provision apply --parallel N` on a simulated fleet, as its own
/// process (`ScalingBenchmark`): 1 link, 5 links on the simulated adapter's 5, 16 links on an adapter
/// configured for 16; at 200 and 1,000 devices (`PROVISION_BENCH_COUNTS`). Each device gets slot 0 turned
/// into an iBeacon, read back and verified; goals (printed, never asserted): speed-up ≥ 0.95 × links, 0
/// devices failed (so `--parallel N` really runs N links). The journal and the simulated fleet's state live in a fresh state
/// directory per run, on disk as the CLI keeps them.
///
/// Needs `beacon-provision` next to this benchmark: `swift build -c release`.
enum ApplyScalingBenchmark {
  static func run() async throws {
    try await ScalingBenchmark.run(name: "apply-scaling", faulty: false) { site, links in
      [
        "apply", site.profile, "--adapter", "sim:\(site.fleet)", "--state-dir", site.folder + "/state", "--scan", "5",
        "--parallel", String(links), "--retry-delay", "1",
      ]
    }
  }
}
