import Foundation
import Testing

@testable import BeaconProvisionCLI

/// Developer guide, naming rules, "Error messages": every error line the tool prints starts with `Error: `,
/// the form ArgumentParser prints for the errors it reports, so a usage error and a failure look alike.
@Suite(.timeLimit(.minutes(1))) struct ErrorLineTests {
  @Test func aFailureStartsAsArgumentParsersErrors() throws {
    var usage: String?
    do {
      _ = try BeaconProvision.parseAsRoot(["scan", "--no-such-option"])
    } catch {
      usage = BeaconProvision.errorText(for: error)
    }
    let usageText = try #require(usage)
    #expect(usageText.hasPrefix(CLIFailure.linePrefix), "\(usageText)")
    #expect(BeaconProvision.failureText(for: CLIFailure("p.json: no such file")) == "Error: p.json: no such file")
  }

  /// The CLI as a process: a refused profile (a `CLIFailure`) and an unknown option (ArgumentParser's).
  @Test func theCLIPrintsBothWithTheSamePrefix() async throws {
    let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID()).json").path
    for arguments in [["profile", "check", missing], ["scan", "--no-such-option"]] {
      let run = try await CLIProcess.run(arguments)
      let first = run.errors.split(separator: "\n").first.map(String.init)
      #expect(run.status != 0, "\(arguments)")
      #expect(first?.hasPrefix("Error: ") == true, "\(arguments): \(first ?? "no output")")
    }
  }
}
