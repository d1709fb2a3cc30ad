import Foundation

/// The runs `apply-scaling` and `audit-connect-scaling` share (does `--parallel N` really run N links?): one command on fleets of
/// `PROVISION_BENCH_COUNTS` devices (default 200 and 1,000), with 1 link (the smallest fleet only: a link's
/// seconds per device are the baseline for every size), with 5 links on the simulated adapter's default 5,
/// and with 16 links on an adapter configured for 16 (`"adapter": {"links": 16}`). Each run prints its wall
/// time, its campaign (first link to last device), the devices failed, the speed-up over one link — of the
/// whole command and of the campaign, against the goal 0.95 × links — and the links in use over the
/// campaign, from the command's own log (`CLIScalingRun`), and its CPU time: with the links full, a speed-up
/// short of the links is the process's CPU (client and simulated fleet together) on a shared machine.
enum ScalingBenchmark {
  static func run(name: String, faulty: Bool, arguments: @escaping (CLIScalingRun.Site, _ links: Int) -> [String])
    async throws
  {
    guard let binary = CLIScalingRun.binary() else {
      print("no beacon-provision next to this benchmark: build it first (swift build -c release)")
      exit(2)
    }
    let counts = (ProcessInfo.processInfo.environment["PROVISION_BENCH_COUNTS"] ?? "200,1000").split(separator: ",")
      .compactMap { Int($0) }
    guard let smallest = counts.min() else { return }
    print(
      "\(name): KBeacon Pros over the simulator's default link model (15 ms per ATT round trip)"
        + (faulty ? "; the first 3 devices busy, with another password, dropping every link" : "")
        + "; \(ProcessInfo.processInfo.activeProcessorCount) CPUs, load \(loadAverage())")
    let one = try await measure(binary, count: smallest, links: 1, adapter: 5, faulty: faulty, arguments)
    print(
      CLIScalingRun.line("\(smallest) devices, 1 link", one.median, devices: smallest, links: 1, baseline: nil)
        + spread(one))
    let baseline = (
      whole: one.median.seconds / Double(smallest), campaign: one.median.campaignSeconds / Double(smallest)
    )
    for count in counts {
      for (links, adapter) in [(5, 5), (16, 16)] {
        let r = try await measure(binary, count: count, links: links, adapter: adapter, faulty: faulty, arguments)
        print(
          CLIScalingRun.line(
            "\(count) devices, --parallel \(links) on a \(adapter)-link adapter", r.median, devices: count,
            links: links, baseline: baseline) + spread(r))
      }
    }
    print("load after: \(loadAverage())")
  }

  /// How many times each command runs (`PROVISION_BENCH_REPEAT`, default 1): a figure within a percent of its
  /// goal moves with the machine by about that much from run to run, so the median run is the one reported.
  static var repeats: Int { max(1, Int(ProcessInfo.processInfo.environment["PROVISION_BENCH_REPEAT"] ?? "") ?? 1) }

  /// The command's runs (each on a fresh site) and the one with the median campaign.
  static func measure(
    _ binary: String, count: Int, links: Int, adapter: Int, faulty: Bool,
    _ arguments: (CLIScalingRun.Site, Int) -> [String]
  ) async throws -> (median: CLIScalingRun.Result, campaigns: [Double]) {
    var runs: [CLIScalingRun.Result] = []
    for _ in 0..<repeats {
      let site = try CLIScalingRun.Site(count: count, adapterLinks: adapter, faulty: faulty)
      defer { site.remove() }
      runs.append(try await CLIScalingRun.run(binary, arguments(site, links)))
    }
    runs.sort { $0.campaignSeconds < $1.campaignSeconds }
    return (runs[runs.count / 2], runs.map(\.campaignSeconds))
  }

  /// With several runs, the range their campaigns took (the line above shows the median run).
  static func spread(_ measured: (median: CLIScalingRun.Result, campaigns: [Double])) -> String {
    guard let low = measured.campaigns.first, let high = measured.campaigns.last, measured.campaigns.count > 1 else {
      return ""
    }
    return String(format: "\n    %d runs, the median shown: campaigns %.2f–%.2f s", measured.campaigns.count, low, high)
  }

  /// The 1-minute load average (`/proc/loadavg`).
  static func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)).map { String($0.prefix { $0 != " " }) } ?? "?"
  }
}
