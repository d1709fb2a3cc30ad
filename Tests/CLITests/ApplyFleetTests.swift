import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Simulator
import Synchronization
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// The profile engine's acceptance run: a 50-device simulated fleet of both generations, some already
/// compliant, some with faults, driven through the same CLI path an operator uses (`plan`/`apply`), with
/// device-side write counts read from the simulator's own state. The time limit bounds a hang: the first test,
/// 6 s alone, ran past 5 minutes in a clean-clone AddressSanitizer pass (16 tests at once on two cores).
@Suite(.isolatedState, .timeLimit(.minutes(9))) struct ApplyFleetTests {
  static let count = 50
  static func address(_ i: Int) -> String { String(format: "DD:34:02:06:E0:%02X", i) }
  /// Faults, by device index: 7 wrong password, 11/12/13 busy for their first two requests, 17/18/19 drop the
  /// link on their first configuration write.
  static let wrongPassword = 7
  static let busy: Set<Int> = [11, 12, 13]
  static let dropping: Set<Int> = [17, 18, 19]
  static let preconfigured: Set<Int> = [0, 5, 10, 20, 25, 30, 35, 40, 45]

  /// The site's folder, removed when the test lets go of it.
  final class Site: Sendable {
    let folder: String

    deinit { try? FileManager.default.removeItem(atPath: folder) }
    var fleet: String { folder + "/fleet.json" }
    var profile: String { folder + "/site.json" }
    var subset: String { folder + "/subset.json" }

    init() throws {
      folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      var devices: [String] = []
      var rows = ["address,minor,tags"]
      for i in 0..<ApplyFleetTests.count {
        var kbeacon: [String] = []
        if i == ApplyFleetTests.wrongPassword { kbeacon.append(#""password": "n0t-the-default""#) }
        if ApplyFleetTests.busy.contains(i) { kbeacon.append(#""busyRequests": 2"#) }
        if ApplyFleetTests.dropping.contains(i) { kbeacon.append(#""dropLinkOnWrites": 1"#) }
        let kind = i % 4 == 3 ? "kbeaconLegacy" : "kbeaconPro"
        let frame =
          i % 4 == 3
          ? #""iBeacon": {"uuid": "7777772E-6B6B-6D63-6E2E-636F6D000001", "major": 1, "minor": \#(i)}"#
          : #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#
        devices.append(
          #"{"address": "\#(ApplyFleetTests.address(i))", "kind": "\#(kind)", "name": "KBPro_F\#(i)", "intervalMs": 300, \#(frame), "kbeacon": {\#(kbeacon.joined(separator: ", "))}}"#
        )
        rows.append(
          "\(ApplyFleetTests.address(i)),\(1000 + i),\(ApplyFleetTests.preconfigured.contains(i) ? "pre" : "")")
      }
      try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
        toFile: fleet, atomically: true, encoding: .utf8)
      try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
      let desired =
        #""desired": {"name": "site-{{minor}}", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 50, "minor": "{{minor}}"}]}"#
      try #"{"version": 1, "inventory": "inventory.csv", \#(desired)}"#.write(
        toFile: profile, atomically: true, encoding: .utf8)
      try #"{"version": 1, "inventory": "inventory.csv", "select": {"tags": ["pre"]}, \#(desired)}"#
        .write(toFile: subset, atomically: true, encoding: .utf8)
    }

    /// Device-side `cfg` counts, from the simulator's saved state.
    func writes() throws -> [String: Int] {
      let store = SimulatorStateStore(stateDirectory: StateDirectory.resolve(nil), fleetFile: fleet)
      return Dictionary(uniqueKeysWithValues: try store.load().map { ($0.key.description, $0.value.writes) })
    }

    func run(
      _ profile: String, dryRun: Bool = false, resume: String? = nil,
      stopWhen: (@Sendable (CampaignEvent) -> Bool)? = nil
    )
      async throws -> CampaignResult
    {
      let options = try ProvisionOptions.parse([
        profile, "--adapter", "sim:\(fleet)", "--scan", "5", "--parallel", "4", "--retry-delay", "0",
      ])
      var runner = ApplyInvocation(options: options, dryRun: dryRun, resume: resume, pace: .unpaced)
      runner.stopWhen = stopWhen
      return try await runner.run()
    }
  }

  @Test func mixedFleetConvergesTouchingOnlyWhatDiffers() async throws {
    let site = try Site()
    // Some devices are compliant before the real run: a first apply limited to them.
    let first = try await site.run(site.subset)
    #expect(first.summary.count(.verified) == Self.preconfigured.count)
    let before = try site.writes()

    let plan = try await site.run(site.profile, dryRun: true)
    #expect(plan.summary.count(.compliant) == Self.preconfigured.count)
    #expect(plan.summary.count(.planned) == Self.count - Self.preconfigured.count - 1)
    #expect(try site.writes() == before, "plan wrote something")

    let apply = try await site.run(site.profile)
    let s = apply.summary
    #expect(
      s.outcomes[Self.address(Self.wrongPassword)] == .failed("authentication failed: wrong password", .wrongPassword)
        || {
          if case .failed(_, .wrongPassword)? = s.outcomes[Self.address(Self.wrongPassword)] {
            return true
          } else {
            return false
          }
        }())
    #expect(s.count(.compliant) == Self.preconfigured.count)
    #expect(s.count(.verified) == Self.count - Self.preconfigured.count - 1)
    #expect(s.count(.failed) == 1)
    let after = try site.writes()
    for i in 0..<Self.count {
      let a = Self.address(i)
      if Self.preconfigured.contains(i) {
        #expect(after[a] == before[a], "compliant \(a) was written")
      } else if i == Self.wrongPassword {
        #expect((after[a] ?? 0) == 0, "the wrong-password device was written")
      } else {
        #expect(after[a] == 1, "\(a) has \(after[a] ?? 0) writes")
      }
    }
    // The link-dropping devices needed a second attempt; the journal shows it.
    let journal = try Journal(path: StateDirectory.resolve(nil) + "/journal.sqlite")
    let rows = try await journal.devices(run: s.run)
    for i in Self.dropping { #expect(rows.first { $0.address == Self.address(i) }?.attempts == 2) }

    let again = try await site.run(site.profile)
    #expect(again.summary.count(.compliant) == Self.count - 1 && !again.summary.changedSomething)
    #expect(try site.writes() == after)
  }

  @Test func aRunStoppedMidwayAndResumedWritesNoDeviceTwice() async throws {
    let site = try Site()
    let finished = Mutex(0)
    let first = try await site.run(
      site.profile,
      stopWhen: { event in
        guard case .finished = event else { return false }
        return finished.withLock {
          $0 += 1
          return $0
        } == 12
      })
    #expect(first.summary.interrupted)
    #expect(first.summary.count(.pending) > 0)
    // The hint names the real profile (and adapter), not a literal PROFILE.
    let hint =
      "interrupted: finish with  beacon-provision apply \(site.profile) --adapter sim:\(site.fleet) --resume \(first.summary.run)"
    #expect(CampaignReport.table(first).hasSuffix(hint), "\(CampaignReport.table(first))")
    let resumed = try await site.run(site.profile, resume: first.summary.run)
    #expect(!resumed.summary.interrupted)
    let journal = try Journal(path: StateDirectory.resolve(nil) + "/journal.sqlite")
    let rows = try await journal.devices(run: first.summary.run)
    #expect(rows.count == Self.count)
    #expect(rows.filter { $0.state == .failed }.map(\.address) == [Self.address(Self.wrongPassword)])
    #expect(rows.filter { $0.state != .failed }.allSatisfy { $0.state == .verified })
    let writes = try site.writes()
    #expect(writes.values.allSatisfy { $0 <= 1 }, "a device was written twice: \(writes.filter { $0.value > 1 })")
    let again = try await site.run(site.profile)
    #expect(again.summary.count(.compliant) == Self.count - 1)
  }
}

/// `kill -9` of a real `apply` process midway, then `apply --resume`: the journal and the simulator's
/// saved state (written before each device acknowledges, like flash) carry everything across the crash.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct ApplyCrashTests {
  /// The `beacon-provision` built next to this test bundle (`/proc/self/exe`), so a test run from another
  /// build path — the sanitizer builds in .build/asan and .build/tsan — runs that build's CLI, not
  /// .build/debug's (which a sanitizer-only CI stage may not have built at all).
  static let binary: String = {
    let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map(
      URL.init(fileURLWithPath:))
    if let sibling = bundle?.deletingLastPathComponent().appendingPathComponent("beacon-provision"),
      FileManager.default.isExecutableFile(atPath: sibling.path)
    {
      return sibling.path
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".build/debug/beacon-provision").path
  }()

  @Test func aKilledApplyResumesAndNoDeviceIsWrittenTwice() async throws {
    let site = try ApplyFleetTests.Site()
    let state = StateDirectory.resolve(nil)
    let apply = try ChildProcess.start(
      Self.binary,
      [
        "apply", site.profile, "--adapter", "sim:\(site.fleet)", "--scan", "1", "--parallel", "1", "--retry-delay",
        "0", "--state-dir", state, "-v",
      ], output: .discarded)
    let (process, exit, progress) = (apply.process, apply.exit, try #require(apply.errors))

    // Wait until a few devices are verified — off a terminal apply names devices only in its closing
    // summary, so the signal is the `-v` log record of each finished device on standard error — then kill
    // without warning.
    // The run id is printed when the run starts (after a kill -9 the closing summary never comes).
    var verified = 0
    var started: String?
    for await line in progress {
      if started == nil, line.hasPrefix("run "),
        line.contains(" started; if it is cut short, finish it with  beacon-provision apply ")
      {
        started = line
      }
      guard line.contains("finished") && line.contains("state=verified") else { continue }
      verified += 1
      if verified == 3 { break }
    }
    try #require(process.isRunning, "the run finished before it could be killed; the test needs a slower link")
    kill(process.processIdentifier, SIGKILL)
    await exit.wait()
    let journalPath = state + "/journal.sqlite"
    let id = try #require(try await Journal(path: journalPath).runs().first?.id)
    #expect(
      started
        == "run \(id) started; if it is cut short, finish it with  beacon-provision apply \(site.profile) --adapter "
        + "sim:\(site.fleet) --state-dir \(state) --resume \(id)  (or --resume last)", "\(started ?? "no start line")")

    let journal = try Journal(path: journalPath)
    let open = try await journal.devices(run: id).filter { !$0.state.isFinal }
    #expect(open.count > 1, "nothing was left to resume")

    // `--resume last` finds the killed run: the newest apply run of the journal.
    let resumed = try await site.run(site.profile, resume: "last")
    #expect(resumed.summary.run == id)
    #expect(!resumed.summary.interrupted)
    let rows = try await journal.devices(run: id)
    // A device written just before the kill is found compliant on resume; every other one is verified.
    #expect(
      rows.filter { $0.state != .verified && $0.state != .compliant }.map(\.address) == [
        ApplyFleetTests.address(ApplyFleetTests.wrongPassword)
      ])
    let writes = try site.writes()
    #expect(writes.values.allSatisfy { $0 <= 1 }, "written twice: \(writes.filter { $0.value > 1 })")
    #expect(writes.values.filter { $0 == 1 }.count == ApplyFleetTests.count - 1)
  }
}
