import BeaconCore
import Synchronization

/// The adapter's link limit (docs/protocols/linux-ble.md §4 item 6: controllers hold 3–7 links). A connect the adapter
/// refuses because every link it can hold is open — `LinkError(.tooManyLinks)`: the simulator's link cap,
/// or BlueZ's EMLINK for HCI status 0x09 Connection Limit Exceeded — is not a device failure and costs the
/// device no attempt. `LinkLimitEstimate` tells a link of ours still being torn down from the adapter's limit:
/// - a teardown: the device pauses (`firstTeardownPause`, doubling up to `lastTeardownPause`) and tries again;
///   the limit stays;
/// - the limit: the campaign lowers its links at once to the attempts in flight (those that ended while the
///   refusal was on its way counted in; a refused probe goes back to the limit last seen) and says so
///   (`CampaignEvent.linkLimit`, once per new low); the device gives back its link permit and waits for
///   one. While none of ours is in flight (another program holds the links) it pauses `idleLinkWait`
///   instead, up to `idleLinkWaitLimit` times [I: 20 × 250 ms, past a typical 2 s disconnect timeout],
///   then counts the refusal as a transient failure under the retry policy.
/// Successes raise the limit again by one link at a time, said once (`CampaignEvent.linkLimitRaised`).
/// `CampaignEvent.linksInUse` reports the attempts in flight and the limit whenever either changes.
extension Campaign {
  static var idleLinkWait: Duration { .milliseconds(250) }
  static var idleLinkWaitLimit: Int { 20 }
  /// [I] A simulated link's slot is free within a millisecond or two of its close; the kernel's takes longer.
  static var firstTeardownPause: Duration { .milliseconds(2) }
  static var lastTeardownPause: Duration { .milliseconds(128) }

  /// A device's pauses on refusals taken for a teardown since its last link.
  struct TeardownWait {
    var waited = Duration.zero
    var next = Campaign.firstTeardownPause
  }

  /// One attempt, counted in flight while it runs. An attempt the adapter refused its first link did not hold
  /// one: its end is no teardown and no success. One refused a later link — the version check after a
  /// firmware transfer, the link that proves a new password — held a link of its own, closed just before that
  /// connect, so its end counts as an end and the refusal may be that link's teardown (`refusedAfterOwnLink`).
  /// (A DFU bootloader's refused connect does not come here: the transfer counts it as a lost link of its own,
  /// `DFUTransfer`.)
  func attemptOnce(_ target: Target, attempt: Int) async throws -> DeviceOutcome {
    inFlight += 1
    reportLinks()
    let heldLink = Mutex(false)
    let connectMade = Mutex<ConnectMade?>(nil)
    do {
      var context = context
      context.offLink = { [self] address, reason, wait in await waitOffLink(address, reason: reason, wait) }
      context.steppedPastConnect = { heldLink.withLock { $0 = true } }
      context.connectStarting = { [self] in
        let end = lastAttemptEnd.withLock { $0 }
        connectMade.withLock { $0 = ConnectMade(end: end, at: .now) }
      }
      let outcome = try await work.attempt(target, attempt: attempt, context: context)
      attemptEnded(heldLink: true, refused: false)
      return outcome
    } catch {
      let refused = (error as? LinkError)?.code == .tooManyLinks
      let held = heldLink.withLock { $0 }
      if refused && held { refusedAfterOwnLink.insert(target.address.description) }
      if refused, let made = connectMade.withLock({ $0 }) { refusedConnects[target.address.description] = made }
      attemptEnded(heldLink: held || !refused, refused: refused)
      throw error
    }
  }

  private func attemptEnded(heldLink: Bool, refused: Bool) {
    inFlight -= 1
    if heldLink {
      lastAttemptEnd.withLock { $0 = .now }
      attemptsEnded += 1
    }
    if !refused, links.attemptEnded() {
      let (low, raised) = links.raiseAnnouncements()
      if let low { continuation.yield(.linkLimit(links: low, asked: options.parallel)) }
      if let raised { continuation.yield(.linkLimitRaised(links: raised, asked: options.parallel)) }
      grantPermits()
    }
    reportLinks()
  }

  /// `CampaignContext.waitOffLink`: while `wait` runs, the attempt is out of flight and its permit is free for
  /// another device (the start loop may start one); then it queues for a permit as a retry does. False when
  /// `wait` said so or the campaign was stopped meanwhile.
  func waitOffLink(
    _ address: String, reason: String, _ wait: CampaignContext.OffLinkWait
  ) async -> Bool {
    if stopRequested { return false }
    let latest = Mutex(reason)
    let say: @Sendable (String) -> Void = { [continuation] reason in
      latest.withLock { $0 = reason }
      continuation.yield(.waiting(address: address, reason: reason))
    }
    say(reason)
    inFlight -= 1
    reportLinks()
    releasePermit()
    let result = await wait(say)
    await takePermit()
    if !result || stopRequested { waitsOffLink[address] = latest.withLock { $0 } }
    connectBaselines[address] = ConnectBaseline(end: lastAttemptEnd.withLock { $0 }, ended: attemptsEnded, at: .now)
    inFlight += 1
    reportLinks()
    return result && !stopRequested
  }

  /// After a refused connect: a short pause for a teardown, or the lowered limit's permit for the limit.
  /// `sinceLastEnd`: from the last end of an attempt of ours to the refused connect (nil: none had ended);
  /// `endedMeanwhile`: the attempts that ended since that connect.
  func waitAfterRefusal(
    _ address: String, sinceLastEnd: Duration?, endedMeanwhile: Int, teardown: inout TeardownWait,
    idleLinkWaits: inout Int
  ) async {
    switch links.refused(
      inFlight: inFlight, endedMeanwhile: endedMeanwhile, sinceLastEnd: sinceLastEnd, teardownWaited: teardown.waited)
    {
    case .teardown:
      let delay = teardown.next
      teardown.waited += delay
      teardown.next = min(delay * 2, Self.lastTeardownPause)
      await pause(address, delay)
    case .limit:
      reportLinks()
      releasePermit()
      if inFlight == 0 {
        idleLinkWaits += 1
        await pause(address, Self.idleLinkWait)
      }
      await takePermit()
      teardown = TeardownWait()
      // Announced after the wait, once the refusals that came together have all lowered it.
      if let low = links.newLow() { continuation.yield(.linkLimit(links: low, asked: options.parallel)) }
    }
  }

  /// `CampaignEvent.linksInUse` when the attempts in flight or the limit changed since the last one.
  func reportLinks() {
    let now = LinksReport(inUse: inFlight, limit: links.limit)
    guard now != lastLinksReport else { return }
    lastLinksReport = now
    continuation.yield(.linksInUse(now.inUse, limit: now.limit))
  }

  /// A pause `requestStop()` cuts short. No suspension between the caller's stop check and registering
  /// the pause, so a stop cannot slip between them.
  func pause(_ address: String, _ delay: Duration) async {
    let backoff = Task { [sleep] in try await sleep(delay) }
    backoffs[address] = backoff
    _ = await backoff.result
    backoffs[address] = nil
  }
}

/// Where a device's attempt stood before its connect: the last end of an attempt of ours, the count of ends,
/// and the time — taken at the attempt's start, or at the end of its off-link wait. The count bounds the limit
/// (`endedMeanwhile`); the time since the last end tells a teardown, measured up to the connect itself where the
/// work said when it made it (`ConnectMade`), else up to this baseline's time. Not up to when the refusal is
/// handled: on a loaded machine that can be seconds later, and a refusal right after a link of ours closed would
/// then be taken for the adapter's limit (an AddressSanitizer run lowered the limit that way).
struct ConnectBaseline {
  var end: ContinuousClock.Instant?
  var ended: Int
  var at: ContinuousClock.Instant

  /// From the last end of ours to the connect (nil: none had ended): to `made` when it came after this
  /// baseline (the connect followed the wait or the attempt's start), else to this baseline's time.
  func sinceLastEnd(_ made: ConnectMade?) -> Duration? {
    if let made, made.at >= at { return made.end.map { made.at - $0 } }
    return end.map { at - $0 }
  }
}

/// A connect as its work was about to make it (`CampaignContext.connectStarting`): the last end of an attempt of
/// ours then, and the time.
struct ConnectMade: Sendable {
  var end: ContinuousClock.Instant?
  var at: ContinuousClock.Instant
}

/// The attempts in flight and the link limit, as last reported.
struct LinksReport: Equatable {
  var inUse: Int
  var limit: Int
}
