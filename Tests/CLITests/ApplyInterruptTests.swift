import ArgumentParser
import Fleet
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// Ctrl-C during `apply`: the first asks the campaign to stop, the second ends the command at once with
/// status 130 — thrown back to the command (which exits on its own path), not `exit` on a signal thread.
@Suite("apply interrupts", .isolatedState, .timeLimit(.minutes(2))) struct ApplyInterruptTests {
  @Test func aSecondInterruptEndsTheRunWithStatus130WhileALinkIsInFlight() async throws {
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent("interrupt-\(UUID().uuidString).json")
      .path
    try #"""
    {"version": 1, "select": {"addresses": ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02"]},
     "desired": {"name": "lobby", "slots": [{"slot": 0, "type": "ibeacon", "major": 4321, "minor": 9}]}}
    """#.write(toFile: profile, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let options = try ProvisionOptions.parse([
      profile, "--adapter", "sim", "--scan", "3", "--parallel", "1", "--retry-delay", "0",
    ])
    let (interrupts, ctrlC) = AsyncStream.makeStream(of: Void.self)
    var runner = ApplyInvocation(options: options, dryRun: false, resume: nil, pace: .unpaced)
    runner.interrupts = interrupts
    // Two Ctrl-Cs while the first device is being read: its link is still open.
    runner.stopWhen = { event in
      if case .step(_, .reading, _) = event {
        ctrlC.yield()
        ctrlC.yield()
      }
      return false
    }
    await #expect(throws: ExitCode(130)) { try await runner.run() }
  }
}
