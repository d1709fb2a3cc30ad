import CampaignPipeline
import Fleet
import Foundation
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// A run id given again with another profile: `--run site1` with a second
/// profile used to join the first profile's run, find its devices done and say "no devices", while `plan`
/// showed every device to change. It is refused, saying how to start a new run; the same profile goes on.
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct RunRecipeCommandTests {
  static func address(_ i: Int) -> String { String(format: "DD:34:02:07:F0:%02X", i) }

  /// Three KBeacon Pros, and two profiles for them differing in their major.
  struct Site {
    let folder: String
    var fleet: String { folder + "/fleet.json" }
    var first: String { folder + "/first.json" }
    var second: String { folder + "/second.json" }

    init() throws {
      folder = try LocalTools.temporaryDirectory("run-recipe")
      let devices = (0..<3).map { i in
        #"{"address": "\#(RunRecipeCommandTests.address(i))", "kind": "kbeaconPro", "name": "KBPro_R\#(i)", "intervalMs": 200, "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}}"#
      }
      try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
        toFile: fleet, atomically: true, encoding: .utf8)
      let rows = ["address,minor"] + (0..<3).map { "\(RunRecipeCommandTests.address($0)),\(300 + $0)" }
      try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
      for (file, major) in [(first, 60), (second, 61)] {
        let desired =
          #""desired": {"slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": \#(major), "minor": "{{minor}}"}]}"#
        try #"{"version": 1, "inventory": "inventory.csv", \#(desired)}"#.write(
          toFile: file, atomically: true, encoding: .utf8)
      }
    }

    func apply(_ profile: String, resume: String? = nil, _ extra: [String] = []) async throws -> CampaignResult {
      let options = try ProvisionOptions.parse(
        [profile, "--adapter", "sim:\(fleet)", "--scan", "3", "--parallel", "3", "--retry-delay", "0"] + extra)
      return try await ApplyInvocation(options: options, dryRun: false, resume: resume, pace: .unpaced).run()
    }
  }

  @Test func aSharedRunIdGivenAgainWithAnotherProfileIsRefused() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try Site()
    defer { try? FileManager.default.removeItem(atPath: site.folder) }
    let shared = ["--journal", url, "--run", "site1", "--gateway", "gw-1"]
    let first = try await site.apply(site.first, shared)
    #expect(first.summary.count(.verified) == 3)
    let error = await #expect(throws: CLIFailure.self) { _ = try await site.apply(site.second, shared) }
    let message = try #require(error).message
    #expect(
      message.contains("run site1 in postgresql://") && message.contains("was made from another profile"), "\(message)")
    #expect(message.contains("--run site1-2"), "\(message)")
    // A new run name takes the second profile; the first profile again goes on with site1 (nothing left).
    let second = try await site.apply(site.second, ["--journal", url, "--run", "site2", "--gateway", "gw-1"])
    #expect(second.summary.count(.verified) == 3)
    let again = try await site.apply(site.first, shared)
    #expect(again.summary.count(.verified) == 0)
    await server.stop()
  }

  @Test func resumingALocalRunWithAnotherProfileIsRefused() async throws {
    let site = try Site()
    defer { try? FileManager.default.removeItem(atPath: site.folder) }
    let first = try await site.apply(site.first)
    #expect(first.summary.count(.verified) == 3)
    let run = first.summary.run
    let error = await #expect(throws: CLIFailure.self) { _ = try await site.apply(site.second, resume: run) }
    #expect(try #require(error).message.contains("run \(run) in \(StateDirectory.resolve(nil))"))
    let resumed = try await site.apply(site.first, resume: run)
    #expect(resumed.summary.outcomes.isEmpty)
  }

  /// `apply --resume last` of a run with nothing left says so without scanning first (it scanned for the
  /// whole `--scan` and then found nothing to do); the CLI as a process, told to scan for ten minutes.
  @Test func resumingAFinishedRunDoesNotScanFirst() async throws {
    let site = try Site()
    defer { try? FileManager.default.removeItem(atPath: site.folder) }
    let first = try await site.apply(site.first)
    #expect(first.summary.count(.verified) == 3)
    let resumed = try await CLIProcess.run([
      "apply", site.first, "--adapter", "sim:\(site.fleet)", "--state-dir", StateDirectory.resolve(nil), "--scan",
      "600", "--resume", "last",
    ])
    #expect(resumed.status == 0, "\(resumed.errors)")
    #expect(
      resumed.errors.contains(
        "resuming \(first.summary.run): every device of the run has finished; nothing left to do"), "\(resumed.errors)")
    #expect(!resumed.errors.contains("scanning"), "\(resumed.errors)")
  }

  /// `dfu update --resume` with another package is refused; the same package's bytes under another path go on.
  @Test func resumingADFURunWithAnotherPackageIsRefused() async throws {
    let fleet = try DFUFleetCampaignTests.fleet(count: 1)
    let (first, second) = (
      try DFUFleetPackages.application(version: 530), try DFUFleetPackages.application(version: 531)
    )
    let copy = first + ".copy.zip"
    try FileManager.default.copyItem(atPath: first, toPath: copy)
    defer { for path in [fleet, first, second, copy] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    let done = try await DFUFleetCampaignTests.update(
      ["--package", first, "--adapter", "sim:\(fleet)"], central: central)
    let run = done.summary.run
    let error = await #expect(throws: CLIFailure.self) {
      _ = try await DFUFleetCampaignTests.update(
        ["--package", second, "--adapter", "sim:\(fleet)", "--resume", run], central: central)
    }
    #expect(try #require(error).message.contains("run \(run) in \(StateDirectory.resolve(nil))"))
    #expect(try #require(error).message.contains("was made from another package (package sha256:"))
    let again = try await DFUFleetCampaignTests.update(
      ["--package", copy, "--adapter", "sim:\(fleet)", "--resume", run], central: central)
    #expect(again.summary.run == run)
  }
}
