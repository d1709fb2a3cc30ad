import BeaconCore

/// The adapter's link limit (linux-ble.md §4 item 6: controllers hold 3–7 links). A connect the adapter
/// refuses because every link it can hold is open — `LinkError(.tooManyLinks)`: the simulator's link cap,
/// or BlueZ's EMLINK for HCI status 0x09 Connection Limit Exceeded — is not a device failure:
/// - while links of this campaign are open, the device waits for one of them to close and tries again
///   (no attempt counted), and the campaign lowers its parallelism to the links the adapter holds and says
///   so (`CampaignEvent.linkLimit`);
/// - while none are open (another program holds the links, or one of ours is still being torn down: the
///   kernel drops an LE link some time after its socket closes), it pauses `idleLinkWait` and tries again,
///   up to `idleLinkWaitLimit` times [I: 20 × 250 ms, past a typical 2 s disconnect timeout], then counts
///   the refusal as a transient failure under the retry policy.
extension Campaign {
  static var idleLinkWait: Duration { .milliseconds(250) }
  static var idleLinkWaitLimit: Int { 20 }

  /// One attempt, counted in flight while it runs; its end wakes the visits waiting for a link.
  func attemptOnce(_ target: Target, attempt: Int) async throws -> DeviceOutcome {
    inFlight += 1
    defer {
      inFlight -= 1
      attemptEnds += 1
      wakeLinkWaiters()
    }
    return try await work.attempt(target, attempt: attempt, context: context)
  }

  /// Lowers the parallelism to the attempts still running (an upper bound on the links the adapter holds:
  /// when several connects are refused together, each lowers it further) and waits until one of them ends
  /// (at once if one ended since this visit's attempt started). The lowered figure is announced after the
  /// wait, once the refusals that came together have all lowered it.
  func waitForLink(address: String, endsBefore: Int) async {
    linkLimit = min(linkLimit, max(1, inFlight))
    // Our own attempt's end counts once; another end since then means a link may be free already.
    if attemptEnds - endsBefore <= 1 {
      await withCheckedContinuation { linkWaiters.append($0) }
    }
    if linkLimit < announcedLinkLimit {
      announcedLinkLimit = linkLimit
      continuation.yield(.linkLimit(links: linkLimit, asked: options.parallel))
    }
  }

  func wakeLinkWaiters() {
    let waiters = linkWaiters
    linkWaiters = []
    for waiter in waiters { waiter.resume() }
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
