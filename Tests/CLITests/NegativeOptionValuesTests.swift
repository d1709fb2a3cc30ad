import Foundation
import Testing

@testable import BeaconProvisionCLI

/// A negative number after a long option reaches that option's own check instead of ArgumentParser's
/// "Missing value" (`NegativeOptionValues`).
@Suite(.timeLimit(.minutes(1))) struct NegativeOptionValuesTests {
  @Test func aNegativeNumberAfterALongOptionIsJoinedToIt() {
    #expect(NegativeOptionValues.joined(["scan", "--duration", "-1"]) == ["scan", "--duration=-1"])
    #expect(
      NegativeOptionValues.joined(["apply", "p.json", "--parallel", "-3", "--json"]) == [
        "apply", "p.json", "--parallel=-3", "--json",
      ])
    #expect(NegativeOptionValues.joined(["scan", "--rssi-threshold", "-80.5"]) == ["scan", "--rssi-threshold=-80.5"])
    #expect(NegativeOptionValues.joined(["scan", "--window", "-.5"]) == ["scan", "--window=-.5"])
  }

  @Test func everythingElseIsLeftAsItIs() {
    for arguments in [
      ["scan", "--duration", "5"],  // not negative
      ["scan", "-v", "-1"],  // a short option
      ["scan", "--duration=-1", "-2"],  // already joined
      ["txrx", "--json", "--", "--x", "-1"],  // after --
      ["scan", "--duration", "-inf"], ["scan", "--duration", "-nan"], ["scan", "--duration", "-x"],
      ["scan", "--duration", "-"], ["scan", "--", "-1"], ["-1"], [],
    ] {
      #expect(NegativeOptionValues.joined(arguments) == arguments, "\(arguments)")
    }
  }

  /// The CLI as a process: the option's own message and the usage exit code, where ArgumentParser said
  /// "Missing value for '--duration <seconds>'".
  @Test func theOptionsOwnCheckAnswers() async throws {
    let scan = try await CLIProcess.run(["scan", "--adapter", "sim", "--duration", "-1"])
    #expect(scan.status == 64, "\(scan.errors)")
    #expect(scan.errors.contains("--duration must be a number of seconds more than 0"), "\(scan.errors)")
    #expect(!scan.errors.contains("Missing value"), "\(scan.errors)")
    // A value that must be negative still works as it did.
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("negative-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    let quiet = try await CLIProcess.run([
      "scan", "--adapter", "sim", "--duration", "0.5", "--rssi-threshold", "-40", "--state-dir", state, "--json",
    ])
    #expect(quiet.status == 0, "\(quiet.errors)")
  }
}
