/// How many links at once a campaign asks of the adapter (docs/protocols/linux-ble.md §4 item 6: controllers hold 3–7
/// links; BlueZ reports its limit as EMLINK for HCI status 0x09 Connection Limit Exceeded, the simulator as
/// `LinkCapacity`'s cap): `--parallel` at first, lowered when the adapter refuses a connect at its limit,
/// raised again by one link after as many attempts as links ended without such a refusal — additive
/// increase, as TCP's congestion window grows after a loss (RFC 5681 §3.1) [I: the step and the count are a
/// choice]. A raise above the limit the adapter was seen to hold is a probe: one refusal takes it back to that
/// limit.
///
/// A refused connect (`LinkError(.tooManyLinks)`) is one of two things, told apart here:
/// - one of this campaign's links still being torn down: the kernel frees a link's slot some time after its
///   socket closes, and the simulator's `LinkCapacity` after the close has returned, so the next device's
///   connect, made as soon as the previous attempt ended, can find the slot still taken — as can an attempt's
///   own next connect after its link closed (the version check after a firmware transfer). Taken to be so
///   while an attempt of ours ended less than `teardownGrace` ago, fewer attempts are in flight than the
///   limit, the limit is not a probe, and the device has not yet paused `teardownGrace` in all on such
///   refusals. The device pauses briefly and tries again; the limit stays.
/// - the adapter's limit (or another program's links): the limit drops to the attempts in flight when the
///   refusal happened, an upper bound on the links the adapter holds for this campaign — or, for a refused
///   probe, back to the limit last seen.
///
/// A device's own failure — busy, a wrong password, a dropped link — is neither: it ends an attempt like a
/// success does and never lowers the limit.
struct LinkLimitEstimate: Sendable {
  /// [I] Past the kernel's 2 s disconnect timeout (HCI_DISCONN_TIMEOUT) for a link whose last channel closed.
  static let teardownGrace = Duration.seconds(2)

  enum Refusal: Equatable { case teardown, limit }

  let asked: Int
  private(set) var limit: Int
  /// The attempts in flight when the adapter last refused at its limit: what it was seen to hold.
  private(set) var measured: Int?
  /// Attempts ended without a refusal at the limit since the limit last changed.
  private var successes = 0
  /// The lowest limit so far (successes may have raised it since), the lowest announced, and whether a
  /// raise was announced.
  private var lowest: Int
  private var lowestAnnounced: Int
  private var raiseAnnounced = false

  init(asked: Int) {
    self.asked = max(1, asked)
    self.limit = self.asked
    self.lowest = self.asked
    self.lowestAnnounced = self.asked
  }

  /// A connect refused. `inFlight`: the other attempts in flight; `endedMeanwhile`: attempts that ended
  /// (having held a link) since the refused one started — the refusal is reported after it happened, and
  /// those may have held links when it did, so the limit is not lowered below `inFlight + endedMeanwhile`;
  /// `sinceLastEnd`: from the last end of an attempt of ours to the refused connect (nil: none had ended);
  /// `teardownWaited`: how long this device has paused on refusals taken for a teardown since its last link.
  mutating func refused(
    inFlight: Int, endedMeanwhile: Int = 0, sinceLastEnd: Duration?, teardownWaited: Duration
  ) -> Refusal {
    if let measured, limit > measured {
      // A probe refused: back to what the adapter was seen to hold. Not down to `inFlight`: another attempt
      // can end between the refusal and this call (a loaded run lowered the limit to 1 that way).
      limit = measured
      successes = 0
      return .limit
    }
    if let since = sinceLastEnd, since < Self.teardownGrace, inFlight < limit, teardownWaited < Self.teardownGrace {
      return .teardown
    }
    let bound = max(1, min(limit, inFlight + endedMeanwhile))
    measured = bound
    successes = 0
    limit = bound
    lowest = min(lowest, bound)
    return .limit
  }

  /// An attempt ended without a refusal at the limit (whatever became of the device). Returns true when
  /// the limit went up by one. A probe above the measured limit that lasted as many attempts as links is
  /// taken as the adapter holding more: the measure is forgotten.
  mutating func attemptEnded() -> Bool {
    guard limit < asked else { return false }
    successes += 1
    guard successes >= limit else { return false }
    if let m = measured, limit > m { measured = nil }
    successes = 0
    limit += 1
    return true
  }

  /// A limit below any announced so far, to announce now (once per new low; the low itself, even if
  /// successes have raised the limit since).
  mutating func newLow() -> Int? {
    guard lowest < lowestAnnounced else { return nil }
    lowestAnnounced = lowest
    return lowest
  }

  /// What to say once an attempt's end raised the limit: a low not yet said, then the first raise. A device
  /// refused at the limit says the low only after it waits for its permit (`Campaign.waitAfterRefusal`), and
  /// the limit can rise meanwhile; saying the low here first keeps the first raise said as the first one
  /// (a loaded run had said "raised to 4" after a raise to 3 went unsaid, the low not yet out).
  mutating func raiseAnnouncements() -> (low: Int?, raised: Int?) {
    let low = newLow()
    return (low, firstRaise())
  }

  /// The first raise, to announce (once per campaign).
  mutating func firstRaise() -> Int? {
    guard !raiseAnnounced, limit > lowestAnnounced else { return nil }
    raiseAnnounced = true
    return limit
  }
}
