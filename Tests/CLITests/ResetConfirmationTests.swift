import ArgumentParser
import Foundation
import JSON
import KBeacon
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `reset` erases a device's settings, so it is confirmed first: refused (exit 64) before any link when nobody
/// can be asked and `--yes` is absent, not done on any answer but yes, done on yes or with `--yes` — each proved
/// by reading the simulated device back.
@Suite(.isolatedState, .timeLimit(.minutes(2))) struct ResetConfirmationTests {
  static let address = "BC:57:29:AA:BB:02"

  /// A one-device fleet (factory name "Door"), renamed "door-2" by a real `apply` so a reset has something to
  /// undo; `body` gets its adapter.
  func withFleet(_ body: (String) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reset-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let fleet = folder.appendingPathComponent("fleet.json").path
    try #"""
    {"version":1,"devices":[{"address":"\#(Self.address)","kind":"kbeaconPro","name":"Door",
      "system":{"model":12,"batteryPercent":90,"firmware":"5.22"}}]}
    """#.write(toFile: fleet, atomically: true, encoding: .utf8)
    let profile = folder.appendingPathComponent("name.json").path
    try #"{"version": 1, "select": {"addresses": ["\#(Self.address)"]}, "desired": {"name": "door-2"}}"#.write(
      toFile: profile, atomically: true, encoding: .utf8)
    let apply = try #require(
      try BeaconProvision.parseAsRoot(["apply", profile, "--adapter", "sim:\(fleet)", "--scan", "1"]) as? ApplyCommand)
    try await apply.run()
    #expect(try await name("sim:\(fleet)") == "door-2")
    try await body("sim:\(fleet)")
  }

  func name(_ adapter: String) async throws -> String? {
    let read = try #require(
      try BeaconProvision.parseAsRoot(["read", Self.address, "--adapter", adapter]) as? ReadCommand)
    let out = KBeaconCommandTests.Lines()
    try await read.execute { out.append($0) }
    let root = try #require(try JSONParser.parse(out.text).objectValue)
    let config = try KBeaconConfiguration(
      deviceJSON: try #require(root["configuration"]?.objectValue), generation: .pro)
    return config.common[CommonKey.name]
  }

  func reset(_ adapter: String, _ extra: [String] = [], answer: String?) async throws -> [String] {
    let command = try #require(
      try BeaconProvision.parseAsRoot(["reset", Self.address, "--adapter", adapter] + extra) as? ResetCommand)
    let out = KBeaconCommandTests.Lines()
    try await command.execute(confirm: { _ in answer }, emit: { out.append($0) })
    return out.all
  }

  @Test func withoutYesAndWithNobodyToAskNothingIsSent() async throws {
    try await withFleet { (adapter: String) async throws in
      do {
        _ = try await reset(adapter, answer: nil)
        Issue.record("reset without --yes and without a terminal went ahead")
      } catch let failure as CLIFailure {
        #expect(failure.exitCode == 64)
        #expect(
          failure.message == "reset erases \(Self.address)'s settings (slots, triggers, name): pass --yes to confirm")
      }
      #expect(try await name(adapter) == "door-2")
    }
  }

  @Test func onlyAYesOnTheTerminalResets() async throws {
    try await withFleet { (adapter: String) async throws in
      for answer in ["", "n", "no", "yes please"] {
        await #expect("answer \(answer)") { _ = try await reset(adapter, answer: answer) } throws: {
          ($0 as? CLIFailure)?.message == "\(Self.address) was not reset"
        }
      }
      #expect(try await name(adapter) == "door-2")
      #expect(try await reset(adapter, answer: " Y ") == ["\(Self.address): settings reset to factory defaults"])
      let after = try await name(adapter)
      #expect(after == "Door", "\(String(describing: after))")
    }
  }

  /// As processes, each command with its own central: `reset` without a terminal and without `--yes` is refused
  /// (exit 64); with `--yes` the reset is saved for the next command to find — it once was not, the command
  /// letting go of the simulated adapter (and so of its fleet's saving) while the link was still up.
  @Test func asProcessesTheRefusalLeavesTheDeviceAndTheResetIsSavedForTheNextCommand() async throws {
    try await withFleet { (adapter: String) async throws in
      let state = FileManager.default.temporaryDirectory.appendingPathComponent("reset-state-\(UUID().uuidString)").path
      defer { try? FileManager.default.removeItem(atPath: state) }
      var environment = ProcessInfo.processInfo.environment
      environment["XDG_STATE_HOME"] = state
      func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await ChildProcess.run(
          ApplyCrashTests.binary, arguments + ["--adapter", adapter], environment: environment, inheriting: false,
          input: .none)
      }
      func name() async throws -> String? {
        let read = try await run(["read", Self.address])
        let root = try #require(try JSONParser.parse(read.output).objectValue, "\(read)")
        return try KBeaconConfiguration(
          deviceJSON: try #require(root["configuration"]?.objectValue), generation: .pro
        ).common[CommonKey.name]
      }
      // The processes have a state directory of their own, where the device starts as the fleet file has it:
      // renamed by an `apply` process first, so a reset has something to undo.
      #expect(try await name() == "Door")
      let apply = try await ChildProcess.run(
        ApplyCrashTests.binary,
        [
          "apply",
          (adapter.dropFirst(4) as Substring).replacingOccurrences(
            of: "fleet.json", with: "name.json"), "--adapter", adapter, "--scan", "1",
        ],
        environment: environment, inheriting: false, input: .none)
      #expect(apply.status == 0, "\(apply)")
      #expect(try await name() == "door-2")
      let refused = try await run(["reset", Self.address])
      #expect(refused.status == 64, "\(refused)")
      #expect(refused.errors.contains("pass --yes to confirm"), "\(refused.errors)")
      #expect(try await name() == "door-2", "the refused reset reached the device")
      let reset = try await run(["reset", Self.address, "--yes"])
      #expect(reset.status == 0, "\(reset)")
      #expect(try await name() == "Door")
    }
  }

  @Test func yesResetsWithoutAsking() async throws {
    try await withFleet { (adapter: String) async throws in
      #expect(
        try await reset(adapter, ["--yes"], answer: nil) == ["\(Self.address): settings reset to factory defaults"])
      let after = try await name(adapter)
      #expect(after == "Door", "\(String(describing: after))")
    }
  }
}
