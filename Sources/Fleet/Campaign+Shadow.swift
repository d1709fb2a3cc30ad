import Synchronization

/// A device that a DFU bootloader shadows (docs/protocols/nordic-dfu.md §2.2): a no-bond bootloader answers at
/// its application's address + 1, which in a batch of consecutive addresses is the next device's. This
/// process never has both neighbours in flight (`AddressNeighbourhood`), but on a site several gateways share,
/// another gateway may be updating the device below while this one visits the device above; and a device
/// left in its bootloader by a stopped run shadows its neighbour until its inactivity timer runs out. Either
/// way the shadow leaves on its own, so the visit waits for it rather than spending its attempts in a row
/// against it (which failed the device "not ready" while the neighbour's transfer was still running).
///
/// [I] The wait looks again every `Options.shadowLook` (2 s) and gives up after `Options.shadowWait` all told
/// (130 s, the bootloader quarantine: the SDK's inactivity timeout and a margin); after that the attempt
/// counts as a failed one, as before. `reconcile` does not wait (`shadowWait` zero): its ledger tries the device
/// again in a later pass (`ReconcileLedger`). A round of a shared run does not wait either
/// (`Options.deferShadowed`): it ends the device pending, shadowed, and a later round takes it up again
/// (`SiteCampaign`), for 130 s from the first time; after that its attempts are spent as any others'. A stop
/// (Ctrl-C) ends a shadowed device pending, and the round interrupted.
extension Campaign {
  /// What a shadowed device's visit does next (`shadowed(_:reason:waited:)`).
  enum ShadowStep {
    /// End with this outcome: left for a later round, or pending after a stop or a journal failure.
    case end(DeviceOutcome)
    /// Attempt again, the attempt not spent: after a look's wait.
    case tryAgain
    /// The waiting is over: the ordinary retry path, attempts spent.
    case spendAttempt
  }

  /// After an attempt a bootloader shadowed: deferred to a later round while `Options.deferShadowed` allows,
  /// else a look's wait while `waited` (which grows by it) is under `Options.shadowWait`, else attempts spent.
  func shadowed(_ address: String, reason: String, waited: inout Duration) async -> ShadowStep {
    if stopRequested { return .end(await finish(address, .pending, detail: reason)) }
    if let deferrals = options.deferShadowed {
      guard deferrals.mayDefer(address) else { return .spendAttempt }
      return .end(await deferShadowed(address, reason: reason))
    }
    guard waited < options.shadowWait else { return .spendAttempt }
    let look = min(options.shadowLook, options.shadowWait - waited)
    waited += look
    guard await journalPending(address, reason: reason, kind: .bootloaderAtAddress) else { return .end(.pending) }
    if stopRequested { return .end(await finish(address, .pending, detail: reason)) }
    // As a retry's pause: announced, the link permit free for another device meanwhile.
    continuation.yield(
      .waiting(
        address: address, reason: "a DFU bootloader answers at its address (a neighbour's update); looking again"))
    releasePermit()
    await pause(address, look)
    await takePermit()
    return stopRequested ? .end(await finish(address, .pending, detail: reason)) : .tryAgain
  }

  /// `Options.deferShadowed`: the device ends pending now, journalled as shadowed (`FailureKind.bootloaderAtAddress`,
  /// the reason as detail), its attempt not spent.
  func deferShadowed(_ address: String, reason: String) async -> DeviceOutcome {
    guard await journalPending(address, reason: reason, kind: .bootloaderAtAddress) else { return .pending }
    deferred.insert(address)
    continuation.yield(
      .waiting(address: address, reason: "a DFU bootloader answers at its address: left for a later round"))
    continuation.yield(.finished(address: address, .pending))
    return .pending
  }
}

/// How long a shared run's rounds may leave each shadowed device for a later one (`Campaign.Options.deferShadowed`):
/// `bound` from its first deferral (130 s, the bootloader quarantine), one set for the whole site campaign so
/// that the bound spans its rounds.
public final class ShadowDeferrals: Sendable {
  private let first = Mutex<[String: ContinuousClock.Instant]>([:])
  let bound: Duration

  public init(bound: Duration = FirmwareWork.defaultBootloaderQuarantine) { self.bound = bound }

  /// Whether `address` would be left for a later round now, without counting this as a deferral.
  func wouldDefer(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
    withinBound(address, now: now, remembering: false)
  }

  /// Whether `address` may be left for a later round now (its first deferral is remembered).
  func mayDefer(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
    withinBound(address, now: now, remembering: true)
  }

  /// Whether `now` is within `bound` of `address`'s first deferral (now, when it has none yet, which
  /// `remembering` records).
  private func withinBound(_ address: String, now: ContinuousClock.Instant, remembering: Bool) -> Bool {
    first.withLock { first in
      let since = first[address] ?? now
      if remembering { first[address] = since }
      return now - since < bound
    }
  }
}
