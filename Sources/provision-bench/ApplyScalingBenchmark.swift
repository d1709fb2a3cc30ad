import BeaconCore
import Fleet
import Foundation
import Glibc
import Profiles
import Simulator
import Synchronization

/// `provision-bench apply-scaling`: where the time of a fleet `apply` goes as links are added. The same
/// fleet (`PROVISION_BENCH_DEVICES` KBeacon Pros, default 100; 30 ms per ATT round trip) is applied with 1
/// link and with the simulated adapter's 5, with the journal on disk (SQLite, as the CLI keeps it) and, for
/// comparison, in memory. For each run it prints:
/// - the wall time and the speed-up over one link (the link model allows close to 5×);
/// - the mean visit (connect to finished): if it grows with links, the links slow each other down;
/// - link occupancy, the visits' total over links × wall: below 100 % is time the scheduler left a link idle;
/// - CPU, process user+system time over the wall time: the client and the simulated devices share this
///   process, so CPU near the machine's cores is the simulator's own cost, not the radio model's.
enum ApplyScalingBenchmark {
  static let latency = Duration.milliseconds(30)

  struct Figures {
    var seconds: Double, updated: Int, meanVisit: Double, occupancy: Double, cpu: Double
  }

  static func run() async throws {
    let count = ProcessInfo.processInfo.environment["PROVISION_BENCH_DEVICES"].flatMap(Int.init) ?? 100
    print("devices: \(count) KBeacon Pro, link model: \(latency) per ATT round trip, adapter cap 5 links, \(ProcessInfo.processInfo.activeProcessorCount) CPUs")
    let one = try await measure(count: count, links: 1, journalOnDisk: true)
    report("1 link, journal on disk", one, baseline: one)
    let disk = try await measure(count: count, links: 5, journalOnDisk: true)
    report("5 links, journal on disk", disk, baseline: one)
    let memory = try await measure(count: count, links: 5, journalOnDisk: false)
    report("5 links, journal in memory", memory, baseline: one)
  }

  static func report(_ label: String, _ f: Figures, baseline: Figures) {
    print(String(format: "%@: %d updated in %.1f s, speed-up %.2f×; mean visit %.2f s; link occupancy %.0f %%; CPU %.0f %% of one core",
      label, f.updated, f.seconds, baseline.seconds / f.seconds, f.meanVisit, f.occupancy * 100, f.cpu * 100))
  }

  static func measure(count: Int, links: Int, journalOnDisk: Bool) async throws -> Figures {
    let fleet = ApplyBenchmark.fleet(count: count, firstAddress: 0xDD34_0207_0000)
    let profile = try ApplyBenchmark.profile()
    let (central, _) = SimulatedCentral.withKBeacons(fleet: fleet, pace: .realTime, linkModel: LinkModel(roundTripLatency: latency))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let journal = try Journal(path: journalOnDisk ? folder + "/journal.sqlite" : nil)
    let targets = fleet.devices.map { Target(address: $0.address) }
    let run = try await journal.createRun(kind: "apply", source: "bench.json", adapter: "sim", addresses: targets.map(\.address.description))
    let campaign = ApplyCampaign(
      profile: profile, targets: targets, opener: KBeaconOpener(central: central), journal: journal, run: run,
      options: .init(parallel: links, retry: RetryPolicy(maximumAttempts: 1)), passwords: .init(current: Secret("0000000000000000")),
      resolver: DesiredResolver(urlCheck: { _ in nil }))
    // Visit times from the events: the first `connecting` step to `finished`.
    let visits = Task {
      var started: [String: ContinuousClock.Instant] = [:], total = Duration.zero
      for await event in campaign.events {
        switch event {
        case .step(let address, _, _): if started[address] == nil { started[address] = .now }
        case .finished(let address, _): if let t = started[address] { total += ContinuousClock.now - t }
        default: break
        }
      }
      return total
    }
    let cpuBefore = cpuSeconds()
    let start = ContinuousClock.now
    let summary = await campaign.start()
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    let cpu = (cpuSeconds() - cpuBefore) / seconds
    let busy = await visits.value / .seconds(1)
    if let failure = summary.outcomes.values.first(where: { $0.state == .failed }) { print("  first failure: \(failure)") }
    return Figures(seconds: seconds, updated: summary.count(.verified), meanVisit: busy / Double(max(count, 1)),
      occupancy: busy / (Double(links) * seconds), cpu: cpu)
  }

  /// User + system CPU time of this process so far.
  static func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }
}
