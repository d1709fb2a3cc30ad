import CampaignPipeline
import JSON
import Testing

/// `reconcile --rollout`'s stages over a site heard a few devices at a time (`ReconcileRollout`): the canary's
/// devices first, each wave's share of the rest only once the stage before ended at or under the threshold,
/// a stop over it that lets nobody through until resumed, and small sites' empty waves passed over.
@Suite(.timeLimit(.minutes(1))) struct ReconcileRolloutTests {
  let plan = RolloutPlan(canary: 2, waves: [50, 100], maxFailures: 0)
  let site = (0..<10).map { "D\($0)" }

  @Test func theCanaryIsAdmittedFirstAndTheWaveOnlyOnceItEnded() {
    var rollout = ReconcileRollout()
    #expect(rollout.admit(site, population: 10, plan: plan) == ["D0", "D1"])
    // Heard again before its check ended: a member goes through again, nobody new.
    #expect(rollout.admit(["D5", "D1"], population: 10, plan: plan) == ["D1"])
    rollout.record("D0", failed: false)
    #expect(rollout.advance(population: 10, plan: plan) == nil, "D1 has no outcome yet")
    rollout.record("D1", failed: false)
    #expect(rollout.advance(population: 10, plan: plan) == .stageEnded(stage: 0, devices: 2, failures: 0))
    // Wave 1: half of the other 8.
    #expect(rollout.admit(Array(site.dropFirst(2)), population: 10, plan: plan) == ["D2", "D3", "D4", "D5"])
    for d in ["D2", "D3", "D4", "D5"] { rollout.record(d, failed: false) }
    #expect(rollout.advance(population: 10, plan: plan) == .stageEnded(stage: 1, devices: 4, failures: 0))
    #expect(rollout.admit(Array(site.dropFirst(6)), population: 10, plan: plan) == ["D6", "D7", "D8", "D9"])
    for d in ["D6", "D7", "D8", "D9"] { rollout.record(d, failed: false) }
    #expect(rollout.advance(population: 10, plan: plan) == .stageEnded(stage: 2, devices: 4, failures: 0))
    #expect(rollout.isComplete(plan))
    #expect(rollout.admit(["D10", "D11"], population: 12, plan: plan) == ["D10", "D11"])
  }

  /// The rollout is kept per profile content and source: an edit of the profile gives it a new key. A stop of
  /// the source under the old key carries over to the new rollout before it admits anyone (it admitted a new
  /// canary of the release that had failed); `--resume-rollout` moves it on, and it is not stopped again.
  @Test func aStopCarriesOverToTheRolloutOfTheEditedProfile() {
    var old = ReconcileRollout()
    _ = old.admit(site, population: 10, plan: plan)
    old.record("D0", failed: true)
    old.record("D1", failed: false)
    guard case .stopped? = old.advance(population: 10, plan: plan) else {
      Issue.record("the canary with a failure did not stop the rollout (max failures 0)")
      return
    }
    let rollouts = ["p1\nlatest": old, "p1\nV5.14": ReconcileRollout()]
    let reason = ReconcileRollout.stopOfSource("latest", otherThan: "p2\nlatest", in: rollouts)
    #expect(reason == old.stopped)
    #expect(ReconcileRollout.stopOfSource("V5.14", otherThan: "p2\nV5.14", in: rollouts) == nil)
    var edited = ReconcileRollout()
    edited.inheritStop(reason)
    #expect(
      edited.admit(site, population: 10, plan: plan).isEmpty && edited.stopped?.contains("--resume-rollout") == true)
    // Edited again before anyone resumed: the stop carries over once more, and says where it came from once.
    var twice = ReconcileRollout()
    twice.inheritStop(edited.stopped)
    #expect(twice.stopped == edited.stopped)
    edited.resume(plan: plan)
    edited.inheritStop(reason)
    #expect(edited.stopped == nil && edited.stage == 1)
    // One that has begun keeps going: its own stop or not is its own.
    var begun = ReconcileRollout()
    _ = begun.admit(site, population: 10, plan: plan)
    begun.inheritStop(reason)
    #expect(begun.stopped == nil)
  }

  /// `settle` records outcomes and ends the stages that can end. Run again with its token on the rollout it left
  /// (a shared journal's transaction run twice because its COMMIT's reply was lost) it returns the same steps,
  /// so the stage's end is still reported; another settling finds nothing more to end. The record survives a
  /// round trip through JSON, as the journal keeps it.
  @Test func aSettlingRunTwiceReportsTheStageItEndedBothTimes() throws {
    var rollout = ReconcileRollout()
    _ = rollout.admit(site, population: 10, plan: plan)
    let ended = ["D0": false, "D1": false]
    let steps = rollout.settle(ended, population: 10, plan: plan, token: "t1")
    #expect(steps == [ReconcileRollout.SettledStep(step: .stageEnded(stage: 0, devices: 2, failures: 0), next: 1)])
    let saved = try JSONFileDecoder(file: "row").decode(
      ReconcileRollout.self, from: Array(try JSONValueEncoder().text(rollout).utf8))
    var again = saved
    #expect(again.settle(ended, population: 10, plan: plan, token: "t1") == steps)
    #expect(again == saved, "the second run changed nothing")
    #expect(again.settle(ended, population: 10, plan: plan, token: "t2").isEmpty)
    // Run again later with the same token and more outcomes (the journal never answered the first time): the
    // first run's end and the wave's that the new outcomes end.
    var later = saved
    _ = later.admit(site, population: 10, plan: plan)
    let wave = Dictionary(uniqueKeysWithValues: ["D2", "D3", "D4", "D5"].map { ($0, false) })
    #expect(
      later.settle(ended.merging(wave) { $1 }, population: 10, plan: plan, token: "t1")
        == steps + [ReconcileRollout.SettledStep(step: .stageEnded(stage: 1, devices: 4, failures: 0), next: 2)])
  }

  @Test func aStageOverTheThresholdStopsTheRolloutUntilResumed() {
    var rollout = ReconcileRollout()
    let lenient = plan.with(maxFailures: 50)
    _ = rollout.admit(site, population: 10, plan: lenient)
    rollout.record("D0", failed: true)
    rollout.record("D1", failed: false)
    // 1 of 2 is 50 %: at the threshold, the wave starts.
    #expect(rollout.advance(population: 10, plan: lenient) == .stageEnded(stage: 0, devices: 2, failures: 1))
    let wave = rollout.admit(site, population: 10, plan: lenient)
    #expect(wave == ["D0", "D1", "D2", "D3", "D4", "D5"], "members again, then four new")
    for d in ["D2", "D3", "D4"] { rollout.record(d, failed: true) }
    rollout.record("D5", failed: false)
    guard case .stopped(1, 4, 3, let reason)? = rollout.advance(population: 10, plan: lenient) else {
      Issue.record("wave 1 with 3 of 4 failed did not stop the rollout")
      return
    }
    #expect(reason.contains("3 of 4 devices failed") && reason.contains("--max-failures 50%"))
    #expect(rollout.admit(site, population: 10, plan: lenient).isEmpty, "stopped: nobody goes through")
    rollout.resume(plan: lenient)
    #expect(rollout.stopped == nil && rollout.stage == 2)
    #expect(rollout.admit(["D6"], population: 10, plan: lenient) == ["D6"])
  }

  @Test func aSmallSitesEmptyWavesArePassedOver() {
    // 3 devices: canary 1, then 10 % and 25 % of 2 round to nothing until 100 %.
    let small = RolloutPlan(canary: 1, waves: [10, 25, 100], maxFailures: 0)
    var rollout = ReconcileRollout()
    #expect(rollout.admit(["A", "B", "C"], population: 3, plan: small) == ["A"])
    rollout.record("A", failed: false)
    #expect(rollout.advance(population: 3, plan: small) == .stageEnded(stage: 0, devices: 1, failures: 0))
    let next = rollout.admit(["B", "C"], population: 3, plan: small)
    #expect(next.count >= 1, "a wave that holds devices starts")
    for d in next { rollout.record(d, failed: false) }
    var ended = 0
    while rollout.advance(population: 3, plan: small) != nil { ended += 1 }
    let rest = rollout.admit(["B", "C"], population: 3, plan: small)
    for d in rest { rollout.record(d, failed: false) }
    while rollout.advance(population: 3, plan: small) != nil { ended += 1 }
    #expect(rollout.isComplete(small), "stage \(rollout.stage), members \(rollout.members)")
    #expect(Set(rollout.members.keys) == ["A", "B", "C"])
  }

  /// A site heard a few devices at a time: the stages sized on the first ones do not end the rollout; the
  /// last stage takes the devices that converge later, a stage at a time, never all at once.
  @Test func devicesThatConvergeLaterJoinTheLastStageNotAnUnstagedRush() {
    let plan = RolloutPlan(canary: 2, waves: [10, 100], maxFailures: 0)
    var rollout = ReconcileRollout()
    #expect(rollout.admit(["D0", "D1"], population: 2, plan: plan) == ["D0", "D1"])
    rollout.record("D0", failed: false)
    rollout.record("D1", failed: false)
    #expect(rollout.advance(population: 2, plan: plan) == .stageEnded(stage: 0, devices: 2, failures: 0))
    #expect(!rollout.isComplete(plan), "the last stage stays open for the devices to come")
    // One more device converged: the population is 3, the last stage has room for one.
    #expect(rollout.admit(["D2", "D3"], population: 3, plan: plan) == ["D2"])
  }

  /// `--resume-rollout` past a stage that cannot end (a member no longer heard): the stage's unfinished
  /// members leave it and the next stage starts.
  /// Shared by gateways that count the site differently (each knows its own converged devices): the stages are
  /// sized on the largest count any of them gave (`count`), so a gateway that knows three devices does not end
  /// a wave of a hundred-device site with one.
  @Test func gatewaysCountingTheSiteDifferentlyShareTheLargestCount() {
    let plan = RolloutPlan(canary: 1, waves: [10, 25, 100], maxFailures: 0)
    var rollout = ReconcileRollout()
    #expect(rollout.admit(["A0"], population: rollout.count(100), plan: plan) == ["A0"])
    rollout.record("A0", failed: false)
    #expect(rollout.advance(population: rollout.count(3), plan: plan) == .stageEnded(stage: 0, devices: 1, failures: 0))
    // The gateway that counts 3: wave 1 is still 10 of the 99 others, not 1 of 2.
    #expect(rollout.count(3) == 100 && rollout.population == 100)
    #expect(rollout.admit(["B1"], population: rollout.count(3), plan: plan) == ["B1"])
    rollout.record("B1", failed: false)
    #expect(rollout.advance(population: rollout.count(3), plan: plan) == nil)
    #expect(rollout.stage == 1)
  }

  @Test func resumingMovesPastAStageThatCannotEnd() {
    var rollout = ReconcileRollout()
    _ = rollout.admit(site, population: 10, plan: plan)
    rollout.record("D0", failed: false)
    #expect(rollout.advance(population: 10, plan: plan) == nil, "D1 is gone, its check never ends")
    rollout.resume(plan: plan)
    #expect(rollout.stage == 1 && rollout.members["D1"] == nil && rollout.members["D0"]?.failed == false)
    #expect(rollout.admit(["D1"], population: 10, plan: plan) == ["D1"], "back in a later stage")
  }
}
