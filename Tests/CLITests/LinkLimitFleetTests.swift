import Fleet
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `plan --parallel 8` on the simulated adapter, which holds 5 links like a real controller (3–7,
/// docs/protocols/linux-ble.md §4 item 6): the link limit makes devices wait, it fails none of them.
@Suite("Link limit on the simulated adapter", .isolatedState, .timeLimit(.minutes(2))) struct LinkLimitFleetTests {
  @Test func parallelEightOnAFiveLinkAdapterFailsNoDevice() async throws {
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString).json").path
    try #"{"version": 1, "desired": {"name": "links-{{address_hex}}"}}"#.write(
      toFile: profile, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let options = try ProvisionOptions.parse([
      profile, "--adapter", "sim", "--scan", "3", "--parallel", "8", "--retry-delay", "0", "--attempts", "1",
    ])
    let result = try await ApplyInvocation(options: options, dryRun: true, resume: nil, pace: .unpaced).run()
    #expect(result.summary.outcomes.count > 5)
    let failures = result.summary.outcomes.filter { $0.value.state == .failed }
    #expect(failures.isEmpty, "\(failures)")
  }
}
