import CampaignPipeline
import Testing

/// `--rollout canary=N,waves=P%,…,100% --max-failures P%` (`RolloutPlan`): the accepted form, every
/// refusal byte for byte (option, problem, allowed form), the waves' partition and the threshold.
@Suite(.timeLimit(.minutes(2))) struct RolloutPlanTests {
  static let form =
    "expected canary=N,waves=P%,P%,…,100% (N ≥ 1; percentages increasing, the last 100%), e.g. canary=2,waves=10%,25%,100%"

  @Test func theIssueExampleParses() throws {
    let plan = try RolloutPlan(rollout: "canary=5,waves=10%,25%,100%", maxFailures: "5%")
    #expect(plan == RolloutPlan(canary: 5, waves: [10, 25, 100], maxFailures: 5))
    #expect(
      try RolloutPlan(rollout: "canary=1,waves=100%", maxFailures: nil)
        == RolloutPlan(canary: 1, waves: [100], maxFailures: 0))
  }

  @Test func badRolloutsAreRefusedNamingTheOptionAndTheForm() {
    let cases: [(String, String)] = [
      ("waves=10%,100%", "it must start with canary=N"),
      ("canary=0,waves=100%", "canary must be a whole number ≥ 1"),
      ("canary=x,waves=100%", "canary must be a whole number ≥ 1"),
      ("canary=2", "waves=… must follow the canary"),
      ("canary=2,10%,100%", "waves=… must follow the canary"),
      ("canary=2,waves=10,100%", "'10' is not a percentage 1%…100%"),
      ("canary=2,waves=0%,100%", "'0%' is not a percentage 1%…100%"),
      ("canary=2,waves=10%,,100%", "'' is not a percentage 1%…100%"),
      ("canary=2,waves=50%,25%,100%", "the waves' percentages must increase (50% then 25%)"),
      ("canary=2,waves=10%,50%", "the last wave must be 100%"),
    ]
    for (text, why) in cases {
      let error = #expect(throws: RolloutPlanError.self, "\(text)") { try RolloutPlan(rollout: text, maxFailures: nil) }
      #expect(error?.description == "--rollout \(text): \(why); \(Self.form)")
    }
    for bad in ["5", "101%", "-1%", "x%"] {
      let error = #expect(throws: RolloutPlanError.self) {
        try RolloutPlan(rollout: "canary=1,waves=100%", maxFailures: bad)
      }
      #expect(error?.description == "--max-failures \(bad): expected a percentage 0%…100% of a wave's devices, e.g. 5%")
    }
  }

  /// 24 devices, canary 2, then 10% / 25% / 100% of the other 22 (rounded up: 3, 6, 22): every device once, in order.
  @Test func wavesPartitionTheDevicesCumulatively() {
    let plan = RolloutPlan(canary: 2, waves: [10, 25, 100])
    let waves = plan.partition(24)
    #expect(waves.map(\.number) == [0, 1, 2, 3])
    #expect(waves.map(\.range) == [0..<2, 2..<5, 5..<8, 8..<24])
    #expect(waves.map { plan.name(ofWave: $0.number) } == ["canary", "wave 1 (10%)", "wave 2 (25%)", "wave 3 (100%)"])
    // few devices: empty waves are left out, the canary takes what there is
    #expect(plan.partition(3).map(\.range) == [0..<2, 2..<3])
    #expect(plan.partition(3).map(\.number) == [0, 1])
    #expect(plan.partition(1).map(\.range) == [0..<1])
    #expect(plan.partition(0).isEmpty)
  }

  /// A rollout run's source records the plan (`campaign status` reads it back: `RolloutStatusTests`).
  @Test func theRecordedSourceGivesTheWavesBack() {
    let plan = RolloutPlan(canary: 1, waves: [50, 100], maxFailures: 5)
    let source = plan.source("/tmp/app --rollout x.zip")
    #expect(source == "/tmp/app --rollout x.zip --rollout canary=1,waves=50%,100% --max-failures 5%")
    #expect(RolloutPlan(recordedSource: source) == plan)
    #expect(RolloutPlan(recordedSource: "/tmp/app.zip") == nil)
  }

  /// The plan's text, as the shared journal's rollout row keeps it, reads back; other text does not.
  @Test func thePlanTextReadsBack() {
    let plan = RolloutPlan(canary: 2, waves: [10, 25, 100], maxFailures: 5)
    #expect(RolloutPlan(text: plan.text) == plan)
    #expect(RolloutPlan(text: "canary=2,waves=10%,100%") == nil)
    #expect(RolloutPlan(text: "canary=2,waves=10% --max-failures 5%") == nil)
    #expect(RolloutPlan(text: "") == nil)
  }

  @Test func theThresholdIsAtOrUnder() {
    let plan = RolloutPlan(canary: 1, waves: [100], maxFailures: 5)
    #expect(!plan.isOverThreshold(failures: 1, of: 20))  // 5% exactly: the next wave starts
    #expect(plan.isOverThreshold(failures: 1, of: 19))
    #expect(!plan.isOverThreshold(failures: 0, of: 1))
    #expect(RolloutPlan(canary: 1, waves: [100], maxFailures: 0).isOverThreshold(failures: 1, of: 100))
  }
}
