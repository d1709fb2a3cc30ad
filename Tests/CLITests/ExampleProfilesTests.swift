import Fleet
import Foundation
import Glibc
import Testing

@testable import BeaconProvisionCLI

/// What a new user runs first: every example profile in profiles/ plans against the built-in simulated
/// fleet without a device failure, and selects some device.
@Suite("Example profiles on the built-in fleet", .isolatedState, .timeLimit(.minutes(3))) struct ExampleProfilesTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("profiles").path

  static var examples: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
      .filter { $0.hasSuffix(".json") && $0 != "profile.schema.json" }.sorted().map { folder + "/" + $0 }
  }

  @Test(arguments: examples) func plansWithoutAFailure(_ profile: String) async throws {
    // The examples read the password from BEACON_PASSWORD; the built-in fleet has the factory default.
    setenv("BEACON_PASSWORD", "0000000000000000", 0)
    let options = try ProvisionOptions.parse([profile, "--adapter", "sim", "--scan", "3", "--retry-delay", "0"])
    let result = try await ApplyInvocation(options: options, dryRun: true, resume: nil, pace: .unpaced).run()
    #expect(!result.summary.outcomes.isEmpty, "\(profile) selects no device of the built-in fleet")
    let failures = result.summary.outcomes.filter { $0.value.state == .failed }
    #expect(failures.isEmpty, "\(profile): \(failures)")
  }

  @Test func theExamplesAreFound() { #expect(Self.examples.count >= 3) }
}
