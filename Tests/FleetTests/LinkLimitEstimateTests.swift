import Testing

@testable import Fleet

/// `LinkLimitEstimate` alone (docs/protocols/linux-ble.md §4 item 6): a refusal told apart as a teardown or the
/// adapter's limit, and the limit raised again after successes, each said once.
@Suite("Link limit estimate", .timeLimit(.minutes(1))) struct LinkLimitEstimateTests {
  @Test func theEstimateTellsATeardownFromTheLimitAndProbesAfterSuccesses() {
    var e = LinkLimitEstimate(asked: 5)
    // Refused soon after an end of ours, with a link to spare: a teardown.
    let soon = e.refused(inFlight: 4, sinceLastEnd: .milliseconds(1), teardownWaited: .zero)
    // ... unless the device already waited out the grace.
    let waitedOut = e.refused(inFlight: 4, sinceLastEnd: .milliseconds(1), teardownWaited: .seconds(2))
    #expect([soon, waitedOut] == [.teardown, .limit])
    let lows = [e.newLow(), e.newLow()]
    #expect(e.limit == 4 && lows == [4, nil])
    let raises = [e.attemptEnded(), e.attemptEnded(), e.attemptEnded(), e.attemptEnded()]
    let said = [e.firstRaise(), e.firstRaise()]
    #expect(raises == [false, false, false, true] && e.limit == 5 && said == [5, nil])
    // A probe above the measured limit that the adapter refuses is taken back at once, unannounced.
    let probe = e.refused(inFlight: 4, sinceLastEnd: .milliseconds(1), teardownWaited: .zero)
    let low = e.newLow()
    #expect(probe == .limit && e.limit == 4 && low == nil)
    // ... back to the limit it was seen to hold, even when another attempt ended between the refusal and
    // its report (in flight: 1) — not down to the attempts in flight.
    _ = [e.attemptEnded(), e.attemptEnded(), e.attemptEnded(), e.attemptEnded()]
    let racedProbe = e.refused(inFlight: 1, sinceLastEnd: .milliseconds(1), teardownWaited: .zero)
    #expect(racedProbe == .limit && e.limit == 4 && e.newLow() == nil)
    // Nothing of ours ended lately: the adapter's limit.
    var fresh = LinkLimitEstimate(asked: 16)
    let first = fresh.refused(inFlight: 5, sinceLastEnd: nil, teardownWaited: .zero)
    #expect(first == .limit && fresh.limit == 5)
    // Two attempts ended while the refusal was on its way: they may have held links when it happened.
    var raced = LinkLimitEstimate(asked: 16)
    _ = raced.refused(inFlight: 3, endedMeanwhile: 2, sinceLastEnd: nil, teardownWaited: .zero)
    #expect(raced.limit == 5)
  }

  /// The limit rises before the refused device, still waiting for its permit, has said the low: the raise
  /// says the low first, then itself, so the first raise is the one said (seen under ThreadSanitizer on a
  /// loaded machine: the raise to 3 went unsaid and "raised to 4" came after the low).
  @Test func aRaiseBeforeTheLowWasSaidSaysTheLowThenTheFirstRaise() {
    var e = LinkLimitEstimate(asked: 4)
    _ = e.refused(inFlight: 2, sinceLastEnd: nil, teardownWaited: .zero)
    let raised = [e.attemptEnded(), e.attemptEnded()]
    let said = e.raiseAnnouncements()
    #expect(raised == [false, true] && e.limit == 3 && said.low == 2 && said.raised == 3)
    // The waiting device then has no low left to say, and the next raise says nothing.
    let waiting = e.newLow()
    let again = [e.attemptEnded(), e.attemptEnded(), e.attemptEnded()]
    let next = e.raiseAnnouncements()
    #expect(waiting == nil && again == [false, false, true] && e.limit == 4 && next.low == nil && next.raised == nil)
  }
}
