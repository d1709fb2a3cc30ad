import CampaignPipeline
import Testing

/// `ReconcileLedger+Departures`: when each known device was last heard (moved on at most daily, so the schedule
/// is not rewritten every window), devices not heard for `--forget-after` leaving the schedule, the time the
/// service did not run not counted, and a local rollout letting go of the devices that left.
@Suite(.timeLimit(.minutes(1))) struct ReconcileLedgerDeparturesTests {
  static let (a, b) = ("DD:34:02:06:F2:00", "DD:34:02:06:F2:01")

  @Test func hearingMovesOnAtMostDailyAndMakesNoEntryForAnUnknownDevice() {
    let day = ReconcileLedger.heardResolution(forgetAfter: 30 * 86400)
    #expect(day == 86400 && ReconcileLedger.heardResolution(forgetAfter: 60) == 15)
    var ledger = ReconcileLedger()
    ledger.verified(Self.a, fingerprint: "f", drift: [], now: 1000, wrote: true)
    ledger.heard([Self.a, Self.b], now: 1000, resolution: day)
    #expect(ledger.devices[Self.a]?.heardAt == 1000 && ledger.devices[Self.b] == nil)
    let before = ledger
    ledger.heard([Self.a], now: 1000 + day - 1, resolution: day)
    #expect(ledger == before, "a hearing within the day changed the schedule")
    ledger.heard([Self.a], now: 1000 + day, resolution: day)
    #expect(ledger.devices[Self.a]?.heardAt == 1000 + day)
  }

  @Test func aDeviceNotHeardForTheLimitIsForgottenAndOneWithoutAHearingStartsItsClock() {
    var ledger = ReconcileLedger()
    for address in [Self.a, Self.b] { ledger.verified(address, fingerprint: "f", drift: [], now: 0, wrote: true) }
    ledger.heard([Self.a], now: 0, resolution: 25)
    // b has no hearing yet (as in a schedule kept before heardAt): it counts as heard now, not as gone.
    #expect(ledger.forget(notHeardFor: 100, now: 50).isEmpty)
    #expect(ledger.devices[Self.b]?.heardAt == 50)
    #expect(ledger.forget(notHeardFor: 100, now: 100).isEmpty, "exactly the limit is not past it")
    #expect(ledger.forget(notHeardFor: 100, now: 101) == [Self.a])
    #expect(ledger.devices[Self.a] == nil && ledger.devices[Self.b] != nil)
    #expect(ledger.forget(notHeardFor: 100, now: 151) == [Self.b] && ledger.devices.isEmpty)
    // A device that comes back is a new one to the schedule: due for one connected check.
    #expect(ledger.decision(Self.a, fingerprint: "f", drift: [], now: 200, recheck: 86400) == .neverVerified)
  }

  /// A device that refused the password is never forgotten: back, it is still never tried with that password.
  @Test func aDeviceThatRefusedThePasswordIsNeverForgotten() {
    var ledger = ReconcileLedger()
    ledger.failed(Self.a, fingerprint: "f", wrongPassword: true, now: 0)
    ledger.heard([Self.a], now: 0, resolution: 25)
    #expect(ledger.forget(notHeardFor: 100, now: 10_000).isEmpty)
    #expect(ledger.decision(Self.a, fingerprint: "f", drift: [], now: 10_000, recheck: 86400) == .wrongPassword)
  }

  /// The time since any device was last heard, past one resolution, is taken for time the service did not run.
  @Test func theTimeTheServiceDidNotRunIsNotCountedAsAbsence() {
    var ledger = ReconcileLedger()
    for address in [Self.a, Self.b] { ledger.verified(address, fingerprint: "f", drift: [], now: 0, wrote: true) }
    ledger.heard([Self.a], now: 0, resolution: 25)
    ledger.heard([Self.b], now: 80, resolution: 25)
    // Started again at 1,000 (last hearing 80): 895 s of it were the service's downtime.
    ledger.discountDowntime(now: 1000, resolution: 25)
    #expect(ledger.devices[Self.a]?.heardAt == 895 && ledger.devices[Self.b]?.heardAt == 975)
    #expect(ledger.forget(notHeardFor: 100, now: 1000) == [Self.a], "a was last heard 80 s before b")
    let before = ledger
    ledger.discountDowntime(now: 1000, resolution: 25)
    #expect(ledger == before, "no downtime: nothing moves")
  }

  /// A local rollout lets go of the forgotten devices that have no outcome (their stage would wait for them for
  /// good) and counts its population afresh; a member with an outcome keeps its place in its stage's count.
  @Test func aLocalRolloutLetsGoOfForgottenMembersWithoutAnOutcome() {
    var ledger = ReconcileLedger()
    for address in [Self.a, Self.b] { ledger.verified(address, fingerprint: "f", drift: [], now: 0, wrote: true) }
    ledger.heard([Self.a, Self.b], now: 0, resolution: 25)
    var rollout = ReconcileRollout()
    rollout.members = [Self.a: .init(stage: 0, failed: nil), Self.b: .init(stage: 0, failed: false)]
    rollout.population = 40
    ledger.rollouts = ["f\nsource": rollout]
    #expect(ledger.forget(notHeardFor: 100, now: 101) == [Self.a, Self.b])
    let after = ledger.rollouts?["f\nsource"]
    #expect(after?.members.keys.sorted() == [Self.b] && after?.population == nil)
  }
}
