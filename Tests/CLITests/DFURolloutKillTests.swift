import CampaignPipeline
import Fleet
import Foundation
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `kill -9` of a real `dfu update --rollout` process between two waves and in the middle of one, then
/// `--resume last`: every device is updated exactly once (the simulator's write log) and verified (the
/// journal) — none twice, none skipped — and no wave starts before the one before it is done. The process
/// stops itself at the exact point (`SimulatorPauseHook`: `after-batch:K`, `before-transfer:ADDRESS`), and is
/// then killed with SIGKILL. 24 devices, canary=2,waves=25%,50%,100%: waves of 2, 6, 5, 11 in address order.
@Suite(.timeLimit(.minutes(5))) struct DFURolloutKillTests {
  static let count = 24
  static let rollout = ["--rollout", "canary=2,waves=25%,50%,100%", "--max-failures", "0%"]
  static let address = DFUFleetCampaignTests.address

  struct Site {
    let folder: String, fleet: String, package: String
    var state: String { folder + "/state" }

    init() throws {
      folder = try LocalTools.temporaryDirectory("rollout-kill")
      fleet = try DFUFleetCampaignTests.fleet(count: DFURolloutKillTests.count)
      package = try DFUFleetPackages.application(version: 530)
    }

    func remove() { for path in [folder, fleet, package] { try? FileManager.default.removeItem(atPath: path) } }

    func update(_ extra: [String]) -> [String] {
      [
        "dfu", "update", "--package", package, "--adapter", "sim:\(fleet)", "--state-dir", state, "--scan", "2",
        "--parallel", "3", "--attempts", "3", "--retry-delay", "0", "--reconnect-delay", "0", "--object-delay", "0",
        "--timeout", "5",
      ] + extra
    }

    var writes: [String: Int] {
      get throws { try SimulatorStateStore(stateDirectory: state, fleetFile: fleet).writeLog.counts(what: "firmware") }
    }

    func states() async throws -> (run: String, states: [DeviceState]) {
      let journal = try Journal(path: state + "/journal.sqlite")
      let run = try #require(try await journal.runs().first?.id)
      let rows = Dictionary(uniqueKeysWithValues: try await journal.devices(run: run).map { ($0.address, $0.state) })
      return (run, (0..<DFURolloutKillTests.count).map { rows[DFURolloutKillTests.address($0)] ?? .planned })
    }

    /// Starts the rollout stopping itself at `hook`, waits for it to stop, kills it with SIGKILL.
    func killed(at hook: String) async throws {
      let process = try GatewayProcess(
        update(DFURolloutKillTests.rollout), environment: [SimulatorPauseHook.environmentVariable: hook])
      let stopped = await process.line { $0.hasPrefix("test hook: stopped") }
      if !stopped { Issue.record("it ended before the hook: \(await process.finish().text)") }
      try #require(stopped)
      let paused = await process.isStopped()
      try #require(paused)
      process.signal(SIGKILL)
      let end = await process.finish()
      #expect(end.status == SIGKILL, "\(end.text)")
    }

    /// `--resume last` finishes the run: exit 0, every device verified (or found current) and written exactly once.
    func resumeFinishes() async throws {
      let resumed = try await CLIProcess.run(update(["--resume", "last"]))
      #expect(resumed.status == 0, "\(resumed.errors)")
      let (_, states) = try await states()
      // A device killed after its new image was installed but before it was journalled verified is found
      // current on resume (skipped): written once all the same.
      #expect(states.allSatisfy { $0 == .verified || $0 == .skipped }, "\(states)")
      let writes = try writes
      for i in 0..<DFURolloutKillTests.count {
        #expect(writes[DFURolloutKillTests.address(i)] == 1, "device \(i) written \(writes[address(i)] ?? 0) times")
      }
    }

    func address(_ i: Int) -> String { DFURolloutKillTests.address(i) }

    func status(_ run: String) async throws -> [String: Any] {
      let status = try await CLIProcess.run(["campaign", "status", run, "--state-dir", state, "--json"])
      let json = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
      return try #require(json?["rollout"] as? [String: Any], "\(status.output) \(status.errors)")
    }
  }

  /// Killed once the canary and wave 1 ended (batch 2) and before wave 2 started: exactly the first 8 are
  /// updated, the other 16 pending; `campaign status` says paused before wave 2; the resume does the rest.
  @Test func killedBetweenWavesTheResumeFinishesEveryDeviceOnce() async throws {
    let site = try Site()
    defer { site.remove() }
    try await site.killed(at: "after-batch:2")
    let (run, states) = try await site.states()
    #expect(states == Array(repeating: .verified, count: 8) + Array(repeating: .pending, count: 16), "\(states)")
    let writes = try site.writes
    #expect((0..<Self.count).map { writes[Self.address($0)] ?? 0 } == (0..<Self.count).map { $0 < 8 ? 1 : 0 })
    let rollout = try await site.status(run)
    #expect(rollout["verdict"] as? String == "paused" && rollout["atWave"] as? Int == 2, "\(rollout)")
    try await site.resumeFinishes()
  }

  /// Killed in wave 2 (devices 8…12) just before device 10's transfer: wave 3 has not started (its 11
  /// devices pending, never written); `campaign status` says wave 2 is in progress; the resume does the rest.
  @Test func killedDuringAWaveTheResumeFinishesEveryDeviceOnce() async throws {
    let site = try Site()
    defer { site.remove() }
    try await site.killed(at: "before-transfer:\(Self.address(10))")
    let (run, states) = try await site.states()
    #expect(states[0..<8].allSatisfy { $0 == .verified }, "\(states)")
    #expect(states[10] == .working && states[13...].allSatisfy { $0 == .pending }, "\(states)")
    let writes = try site.writes
    #expect((13..<Self.count).allSatisfy { writes[Self.address($0)] == nil } && writes[Self.address(10)] == nil)
    #expect(writes.values.allSatisfy { $0 == 1 })
    let rollout = try await site.status(run)
    #expect(rollout["verdict"] as? String == "in-progress" && rollout["atWave"] as? Int == 2, "\(rollout)")
    try await site.resumeFinishes()
  }
}
