import CampaignPipeline
import Foundation
import Testing

/// `RolloutStatus`: what `campaign status` says of a rollout from the journal's device states alone — each
/// wave's counts and state, and a verdict that is never "finished" while waves remain (between waves the
/// run's recorded status reads "finished", as each wave's scheduler wrote it).
@Suite(.timeLimit(.minutes(2))) struct RolloutStatusTests {
  /// canary 1 then 50% and 100% of the other four: {0}, {1, 2}, {3, 4} in address order.
  static let plan = RolloutPlan(canary: 1, waves: [50, 100], maxFailures: 50)
  static func devices(_ states: [String]) -> [(address: String, state: String)] {
    states.enumerated().map { (String(format: "C0:00:00:00:00:%02X", $0.offset * 4), $0.element) }.reversed()
  }

  @Test func betweenWavesTheRolloutIsPausedBeforeTheNextWaveNotFinished() throws {
    let status = RolloutStatus(
      plan: Self.plan, devices: Self.devices(["verified", "verified", "failed", "pending", "pending"]),
      runStatus: "finished")
    #expect(status.verdict == "paused" && status.atWave == 2)
    #expect(status.waves.map(\.state) == ["passed", "passed", "not-started"])
    #expect(status.waves.map(\.done) == [1, 2, 0] && status.waves.map(\.failed) == [0, 1, 0])
    #expect(status.waves.map(\.share) == [nil, 50, 100] && status.waves.map(\.index) == [0, 1, 2])
    #expect(
      status.lines == [
        "rollout canary=1,waves=50%,100% --max-failures 50%: paused — paused before the wave 2 (100%): the waves "
          + "before passed at or under --max-failures 50%; it has not started (the rollout was stopped or killed "
          + "between waves, or is about to start it); --resume continues it",
        "canary: 1 devices — 1 verified — passed", "wave 1 (50%): 2 devices — 1 failed, 1 verified — passed",
        "wave 2 (100%): 2 devices — 2 pending — not-started",
      ])
    #expect(!status.lines.joined().contains("finished"))
  }

  @Test func aWaveOverTheThresholdStopsTheRolloutThere() throws {
    let status = RolloutStatus(
      plan: Self.plan, devices: Self.devices(["verified", "failed", "failed", "pending", "pending"]),
      runStatus: "stopped")
    #expect(status.verdict == "stopped" && status.atWave == 1)
    #expect(status.waves.map(\.state) == ["passed", "over-threshold", "not-started"])
    #expect(
      status.reason.hasPrefix(
        "stopped after the wave 1 (50%): 2 of 2 devices failed, over --max-failures 50%; the later waves were not started"
      ))
    let json = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
    #expect(json.contains(#""verdict":"stopped""#) && json.contains(#""atWave":1"#))
    #expect(json.contains(#""state":"over-threshold""#) && json.contains(#""failed":2"#))
  }

  @Test func aStartedWaveIsInProgressOrInterruptedAndAResumedOneIsAccepted() {
    let running = RolloutStatus(
      plan: Self.plan, devices: Self.devices(["verified", "working", "pending", "pending", "pending"]),
      runStatus: "running")
    #expect(running.verdict == "in-progress" && running.atWave == 1)
    #expect(running.reason.hasPrefix("in the wave 1 (50%): 0 of 2 devices done, 0 failed"))
    let interrupted = RolloutStatus(
      plan: Self.plan, devices: Self.devices(["verified", "verified", "pending", "pending", "pending"]),
      runStatus: "interrupted")
    #expect(interrupted.verdict == "in-progress" && interrupted.reason.hasPrefix("interrupted in the wave 1 (50%)"))
    // Wave 1 over 50%, but the operator resumed with a higher --max-failures: wave 2 ran.
    let accepted = RolloutStatus(
      plan: Self.plan, devices: Self.devices(["verified", "failed", "failed", "verified", "verified"]),
      runStatus: "finished")
    #expect(accepted.waves.map(\.state) == ["passed", "accepted", "passed"])
    #expect(accepted.verdict == "passed" && accepted.atWave == nil)
  }
}
