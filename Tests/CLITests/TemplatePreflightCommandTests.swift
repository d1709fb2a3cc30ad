import Foundation
import Testing

@testable import BeaconProvisionCLI

/// A templated name no device can take, on a profile that selects by name glob: `plan` stops after the
/// scan and before any connection, naming each device and the field's place in the profile.
@Suite("Template preflight in plan", .isolatedState, .timeLimit(.minutes(2))) struct TemplatePreflightCommandTests {
  @Test func aTooLongTemplatedNameStopsThePlanBeforeConnecting() async throws {
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString).json").path
    try #"{"version": 1, "select": {"name": "KBPro*"}, "desired": {"name": "aisle-x-{{address_hex}}"}}"#
      .write(toFile: profile, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let options = try ProvisionOptions.parse([profile, "--adapter", "sim", "--scan", "2"])
    var runner = ApplyInvocation(options: options, dryRun: true, resume: nil, pace: .unpaced)
    runner.stopWhen = { event in
      Issue.record("a device was visited: \(event)")
      return false
    }
    do {
      _ = try await runner.run()
      Issue.record("the plan ran")
    } catch let failure as CLIFailure {
      let first = try #require(failure.message.split(separator: "\n").first)
      #expect(first.hasPrefix("\(profile):1:"))
      #expect(first.contains("$.desired.name: DD:34:02:06:"))
    }
  }
}
