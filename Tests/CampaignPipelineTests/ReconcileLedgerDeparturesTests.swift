import CampaignPipeline
import Testing

/// `ReconcileLedger+Departures`: when each known device was last heard (moved on at most hourly, so the schedule
/// is not rewritten every window) and devices not heard for `--forget-after` leaving the schedule.
@Suite(.timeLimit(.minutes(1))) struct ReconcileLedgerDeparturesTests {
  static let (a, b) = ("DD:34:02:06:F2:00", "DD:34:02:06:F2:01")

  @Test func hearingMovesOnHourlyAndMakesNoEntryForAnUnknownDevice() {
    let hour = ReconcileLedger.heardResolution(forgetAfter: 30 * 86400)
    #expect(hour == 3600 && ReconcileLedger.heardResolution(forgetAfter: nil) == 3600)
    #expect(ReconcileLedger.heardResolution(forgetAfter: 60) == 15)
    var ledger = ReconcileLedger()
    ledger.verified(Self.a, fingerprint: "f", drift: [], now: 1000, wrote: true)
    ledger.heard([Self.a, Self.b], now: 1000, resolution: hour)
    #expect(ledger.devices[Self.a]?.heardAt == 1000 && ledger.devices[Self.b] == nil)
    let before = ledger
    ledger.heard([Self.a], now: 1000 + hour - 1, resolution: hour)
    #expect(ledger == before, "a hearing within the hour changed the schedule")
    ledger.heard([Self.a], now: 1000 + hour, resolution: hour)
    #expect(ledger.devices[Self.a]?.heardAt == 1000 + hour)
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
}
