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
    #expect(DFUUpdate.exitStatus(result) == 4)
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

    // campaign status shows the waves from the journal
    let (status, source) = try await CampaignStatusCommand.parse([result.summary.run]).load()
    #expect(status.status == "stopped")
    #expect(
      CampaignStatusCommand.waves(status, source: source)
        == "\n\nrollout canary=2,waves=10%,25%,100% --max-failures 40%\n"
        + "canary: 2 devices — 2 verified\nwave 1 (10%): 3 devices — 1 failed, 2 verified\n"
        + "wave 2 (25%): 3 devices — 2 failed, 1 verified\nwave 3 (100%): 16 devices — 16 pending")

    // The operator decides: finish the run without stages. The 16 pending devices are updated, each once;
    // the three refusing bootloaders fail again and nothing is written twice.
    let resumed = try await Self.run(["--resume", result.summary.run], fleet: fleet, package: package)
    #expect(resumed.rollout == nil)
    #expect(resumed.summary.count(.verified) == 16)
    let after = try Self.firmwareWrites(fleet)
    for i in 0..<Self.count { #expect(after[address(i)] == (failing.contains(i) ? nil : 1), "device \(i)") }
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
    #expect(DFUUpdate.exitStatus(result) == 1)
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
    func address(_ i: Int) -> String { String(format: "DD:34:02:%02X:%02X:%02X", 0x06, 0xA0 + i / 60, (i % 60) * 4) }
    let failing = [20, 30, 40, 50, 70]
    let devices = (0..<100).map { i in
      #"{"address": "\#(address(i))", "kind": "kbeaconPro", "name": "KBPro_R\#(i)", "intervalMs": 300, "#
        + (failing.contains(i) ? Self.refusing : Self.system) + "}"
    }
    let fleet = NSTemporaryDirectory() + "dfu-rollout-\(UUID().uuidString).json"
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: fleet, atomically: true, encoding: .utf8)
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
