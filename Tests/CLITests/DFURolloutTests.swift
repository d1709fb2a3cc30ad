import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `dfu update --rollout canary=N,waves=…,100% --max-failures P%` (staged rollouts) on 24 simulated
/// KBeacons, some of whose bootloaders refuse the package (`dfu.hardwareVersion` 53, the package is for 52:
/// docs/protocols/nordic-dfu.md §2, the init packet's hardware version check). Which devices were written is
/// counted from the simulator's shared write log (`SimulatorWriteLog`), as the several-gateway tests count.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct DFURolloutTests {
  static let count = 24
  static let system = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#
  /// A bootloader built for other hardware: every transfer is refused at the init packet.
  static let refusing = system + #", "dfu": {"hardwareVersion": 53}"#

  static func firmwareWrites(_ fleet: String) throws -> [String: Int] {
    try SimulatorStateStore(stateDirectory: StateDirectory.resolve(nil), fleetFile: fleet).writeLog.counts(
      what: "firmware")
  }

  static func run(_ extra: [String], fleet: String, package: String) async throws -> CampaignResult {
    let arguments = ["--package", package, "--adapter", "sim:\(fleet)", "--parallel", "4", "--attempts", "1"] + extra
    return try await DFUFleetCampaignTests.update(arguments, central: try DFUFleetCampaignTests.central(fleet))
  }

  /// canary=2 then 10%, 25%, 100% of the other 22: waves of 2, 3, 3, 16 devices in address order. One refusal
  /// in wave 1 (1 of 3, under 40%) lets wave 2 start; two in wave 2 (2 of 3) stop the rollout there: the 16
  /// devices of wave 3 are never written and stay pending in the journal; exit status 4. `--resume RUN` then
  /// finishes them.
  @Test func aRolloutStopsAtTheWaveOverTheThresholdAndLeavesTheRestUntouched() async throws {
    let failing = [3, 5, 6]
    let fleet = try DFUFleetCampaignTests.fleet(
      count: Self.count, extra: Dictionary(uniqueKeysWithValues: failing.map { ($0, Self.refusing) }))
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let address = DFUFleetCampaignTests.address

    let result = try await Self.run(
      ["--rollout", "canary=2,waves=10%,25%,100%", "--max-failures", "40%"], fleet: fleet, package: package)
    let rollout = try #require(result.rollout)
    #expect(rollout.waves.map(\.name) == ["canary", "wave 1 (10%)", "wave 2 (25%)"])
    #expect(rollout.waves.map(\.devices) == [2, 3, 3])
    #expect(rollout.waves.map(\.failures) == [0, 1, 2])
    #expect(rollout.stopped)
    #expect(
      rollout.stopReason == "rollout stopped after the wave 2 (25%): 2 of 3 devices failed, over --max-failures 40%; "
        + "the later waves were not started and their devices stay pending")
    #expect(DFUUpdateCommand.exitStatus(result) == 4)
    #expect(DFUCampaignReport.table(result).contains("rollout wave 2 (25%): 2 of 3 failed, over --max-failures 40%"))
    let json = try DFUCampaignReport.json(result)
    #expect(
      json.contains(#""plan": "canary=2,waves=10%,25%,100% --max-failures 40%""#)
        && json.contains(#""stopped": true"#))
    #expect(json.contains(#""name": "wave 2 (25%)""#) && json.contains(#""overThreshold": true"#))

    let writes = try Self.firmwareWrites(fleet)
    for i in 0..<8 {
      #expect(writes[address(i)] == (failing.contains(i) ? nil : 1), "device \(i)")
    }
    for i in 8..<Self.count {
      #expect(writes[address(i)] == nil, "device \(i) was written")
      #expect(result.summary.outcomes[address(i)] == .pending, "device \(i)")
    }
    let journal = try Journal(path: CampaignResources.journalPath(StateDirectory.resolve(nil)))
    let states = Dictionary(
      uniqueKeysWithValues: try await journal.devices(run: result.summary.run).map { ($0.address, $0.state) })
    #expect((8..<Self.count).allSatisfy { states[address($0)] == .pending })
    #expect(failing.allSatisfy { states[address($0)] == .failed })

    // campaign status shows the waves and the verdict from the journal, in text and JSON
    let (status, source) = try await CampaignStatusCommand.parse([result.summary.run]).load()
    #expect(status.status == "stopped")
    let verdict = try #require(CampaignStatusCommand.rollout(status, source: source))
    #expect(
      CampaignStatusCommand.waves(verdict)
        == "\n\nrollout canary=2,waves=10%,25%,100% --max-failures 40%: stopped — stopped after the wave 2 (25%): "
        + "2 of 3 devices failed, over --max-failures 40%; the later waves were not started. Decide, then continue "
        + "with --resume (a higher --max-failures accepts the wave)\n"
        + "canary: 2 devices — 2 verified — passed\nwave 1 (10%): 3 devices — 1 failed, 2 verified — passed\n"
        + "wave 2 (25%): 3 devices — 2 failed, 1 verified — over-threshold\n"
        + "wave 3 (100%): 16 devices — 16 pending — not-started")
    #expect(
      CampaignStatusCommand.table(status, rollout: verdict).hasPrefix(
        "run \(result.summary.run) (dfu, rollout stopped at the wave 2 (25%)): 24 devices"))
    let statusJSON = try CampaignStatusCommand.json(status, rollout: verdict)
    #expect(statusJSON.contains(#""verdict": "stopped""#) && statusJSON.contains(#""atWave": 2"#), "\(statusJSON)")
    #expect(statusJSON.contains(#""state": "over-threshold""#) && statusJSON.contains(#""share": 25"#))
    #expect(statusJSON.contains(#""run": "\#(result.summary.run)""#) && statusJSON.contains(#""devices": ["#))

    // The operator decides. --resume alone goes on with the recorded plan: wave 1's and wave 2's failed
    // devices are retried, refuse again, and wave 2 stops the rollout again (exit 4); wave 3 stays untouched.
    let again = try await Self.run(["--resume", result.summary.run], fleet: fleet, package: package)
    #expect(again.rollout?.plan == RolloutPlan(canary: 2, waves: [10, 25, 100], maxFailures: 40))
    #expect(again.rollout?.waves.map(\.name) == ["wave 1 (10%)", "wave 2 (25%)"])
    #expect(again.rollout?.waves.map(\.devices) == [3, 3] && again.rollout?.waves.map(\.failures) == [1, 2])
    #expect(DFUUpdateCommand.exitStatus(again) == 4)
    let afterAgain = try Self.firmwareWrites(fleet)
    #expect((8..<Self.count).allSatisfy { afterAgain[address($0)] == nil })
    // A --rollout other than the recorded one is refused, naming both; nothing is touched.
    await #expect {
      try await Self.run(
        ["--resume", result.summary.run, "--rollout", "canary=2,waves=50%,100%"], fleet: fleet, package: package)
    } throws: {
      "\($0)" == "--rollout canary=2,waves=50%,100% does not match run \(result.summary.run)'s recorded rollout "
        + "canary=2,waves=10%,25%,100%: resume it with --rollout canary=2,waves=10%,25%,100% or without --rollout "
        + "(the recorded one is used)"
    }
    // A higher --max-failures accepts wave 2 (2 of 3 under 70%): wave 3's 16 devices are updated, each once,
    // and the refusing bootloaders are never written.
    let resumed = try await Self.run(
      ["--resume", result.summary.run, "--rollout", "canary=2,waves=10%,25%,100%", "--max-failures", "70%"],
      fleet: fleet, package: package)
    #expect(resumed.rollout?.waves.map(\.name) == ["wave 1 (10%)", "wave 2 (25%)", "wave 3 (100%)"])
    #expect(resumed.rollout?.stopped == false && resumed.summary.count(.verified) == 16)
    let after = try Self.firmwareWrites(fleet)
    for i in 0..<Self.count { #expect(after[address(i)] == (failing.contains(i) ? nil : 1), "device \(i)") }
    let (final, finalSource) = try await CampaignStatusCommand.parse([result.summary.run]).load()
    let verdict2 = try #require(CampaignStatusCommand.rollout(final, source: finalSource))
    #expect(verdict2.verdict == "passed" && verdict2.waves.map(\.state) == ["passed", "passed", "accepted", "passed"])
  }

  /// The same fleet with one refusal in the last wave (1 of 16, under 10%): every wave runs, every other device
  /// is updated once; a failure at or under the threshold does not stop it (exit 1: a device failed).
  @Test func aPassingRolloutUpdatesEveryDevice() async throws {
    let fleet = try DFUFleetCampaignTests.fleet(count: Self.count, extra: [20: Self.refusing])
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }

    let result = try await Self.run(
      ["--rollout", "canary=2,waves=10%,25%,100%", "--max-failures", "10%"], fleet: fleet, package: package)
    let rollout = try #require(result.rollout)
    #expect(rollout.waves.map(\.devices) == [2, 3, 3, 16])
    #expect(rollout.waves.map(\.failures) == [0, 0, 0, 1])
    #expect(!rollout.stopped && rollout.stopReason == nil)
    #expect(DFUUpdateCommand.exitStatus(result) == 1)
    #expect(try DFUCampaignReport.json(result).contains(#""stopped": false"#))
    let writes = try Self.firmwareWrites(fleet)
    for i in 0..<Self.count {
      #expect(writes[DFUFleetCampaignTests.address(i)] == (i == 20 ? nil : 1), "device \(i)")
    }
  }

  /// The 100-device case: 100 simulated devices (addresses 4 apart over two bytes), canary=5 then 10%, 25%, 50%,
  /// 100% of the other 95 (waves of 5, 10, 14, 24, 47). One refusal in wave 2 (1 of 14, 7%) is under 10%; three in
  /// wave 3 (3 of 24, 12.5%) stop it: the 47 devices of wave 4 — a refusing one among them — are never written.
  @Test func aHundredDeviceRolloutStopsAtTheThirdWave() async throws {
    let address = Self.hundredAddress
    let failing = Self.hundredFailing
    let fleet = try Self.hundredDevices()
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }

    let result = try await Self.run(
      ["--rollout", "canary=5,waves=10%,25%,50%,100%", "--max-failures", "10%"], fleet: fleet, package: package)
    let rollout = try #require(result.rollout)
    #expect(rollout.waves.map(\.devices) == [5, 10, 14, 24])
    #expect(rollout.waves.map(\.failures) == [0, 0, 1, 3])
    #expect(rollout.stopped && rollout.waves.last?.name == "wave 3 (50%)")
    let writes = try Self.firmwareWrites(fleet)
    for i in 0..<100 {
      #expect(writes[address(i)] == (i < 53 && !failing.contains(i) ? 1 : nil), "device \(i)")
    }
    #expect(result.summary.count(.pending) == 47)
  }

  /// Device i of the 100-device fleet: addresses 4 apart over two bytes, in address order.
  static func hundredAddress(_ i: Int) -> String {
    String(format: "DD:34:02:%02X:%02X:%02X", 0x06, 0xA0 + i / 60, (i % 60) * 4)
  }
  /// The 100-device fleet's refusing bootloaders: one in wave 2, three in wave 3, one in wave 4 of
  /// canary=5,waves=10%,25%,50%,100%.
  static let hundredFailing = [20, 30, 40, 50, 70]

  /// The 100-device fleet file (`hundredAddress`, `hundredFailing`), at a temporary path.
  static func hundredDevices() throws -> String {
    let devices = (0..<100).map { i in
      #"{"address": "\#(hundredAddress(i))", "kind": "kbeaconPro", "name": "KBPro_R\#(i)", "intervalMs": 300, "#
        + (hundredFailing.contains(i) ? Self.refusing : Self.system) + "}"
    }
    let fleet = NSTemporaryDirectory() + "dfu-rollout-\(UUID().uuidString).json"
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: fleet, atomically: true, encoding: .utf8)
    return fleet
  }

  /// A wrong `--rollout` or `--max-failures` is a usage error (exit 64) naming the option and the form.
  @Test func badRolloutOptionsAreUsageErrors() throws {
    let cases: [([String], String)] = [
      (
        ["--rollout", "canary=0,waves=100%"],
        "--rollout canary=0,waves=100%: canary must be a whole number ≥ 1; expected canary=N,waves="
      ),
      (
        ["--rollout", "canary=1,waves=50%"],
        "--rollout canary=1,waves=50%: the last wave must be 100%; expected canary=N,waves="
      ),
      (["--rollout", "canary=1,waves=100%", "--max-failures", "5"], "--max-failures 5: expected a percentage 0%…100%"),
      (["--max-failures", "5%"], "--max-failures is for --rollout"),
    ]
    for (extra, message) in cases {
      let arguments = ["dfu", "update", "--package", "fw.zip"] + extra
      let error = #expect(throws: (any Error).self, "\(arguments)") { try BeaconProvision.parseAsRoot(arguments) }
      let thrown = try #require(error)
      #expect(BeaconProvision.exitCode(for: thrown) == ExitCode(64), "\(arguments)")
      #expect(BeaconProvision.message(for: thrown).contains(message), "\(BeaconProvision.message(for: thrown))")
    }
  }
}
