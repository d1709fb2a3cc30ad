/// Link permits: how a campaign keeps at most `links.limit` visits attempting at once (Campaign+Links).
/// A visit holds a permit from its start to its end, except while it pauses before a retry or waits off its
/// link (`CampaignContext.waitOffLink`); a visit that
/// found the adapter at its limit gives its permit back and queues for one. Waiting visits are served
/// first come first served, before the start loop starts another device; a stop lets them all through
/// (each sees the stop and ends pending).
extension Campaign {
  /// Takes a permit if one is free and no visit waits for one.
  func takeFreePermit() -> Bool {
    guard permitWaiters.isEmpty, permitsHeld < links.limit else { return false }
    permitsHeld += 1
    return true
  }

  /// Takes a permit, waiting for one when none is free.
  func takePermit() async {
    if stopRequested {
      permitsHeld += 1
      return
    }
    if takeFreePermit() { return }
    // `grantPermits` counts the permit held as it resumes the wait.
    await withCheckedContinuation { permitWaiters.append($0) }
  }

  func releasePermit() {
    permitsHeld -= 1
    grantPermits()
  }

  /// Hands free permits to waiting visits, then wakes the start loop if one is left.
  func grantPermits() {
    while !permitWaiters.isEmpty, stopRequested || permitsHeld < links.limit {
      permitsHeld += 1
      permitWaiters.removeFirst().resume()
    }
    if permitWaiters.isEmpty, permitsHeld < links.limit { wakeLauncher() }
  }

  /// The start loop's wait (as a task of its group) until a permit may be free.
  func launcherNap() async {
    if launcherWoken || launcherEnded {
      launcherWoken = false
      return
    }
    await withCheckedContinuation { launcherWaiter = $0 }
  }

  func wakeLauncher() {
    if let waiter = launcherWaiter {
      launcherWaiter = nil
      waiter.resume()
    } else {
      launcherWoken = true
    }
  }

  /// The start loop is done: its last nap ends now.
  func endLauncherNaps() {
    launcherEnded = true
    wakeLauncher()
  }
}
