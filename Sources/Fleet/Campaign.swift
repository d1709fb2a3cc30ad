import BeaconCore
import Profiles
import Synchronization

/// The scheduler every fleet campaign (`apply`, `plan`, `dfu`) shares: a bounded number of links at once,
/// transient failures retried with backoff (`RetryPolicy`), a wrong password never retried, each device's
/// end journalled, progress as events, and `requestStop()` (Ctrl-C) letting links in flight finish while
/// the rest stay pending for `--resume`. A journal that cannot be written stops the campaign the same way
/// and the summary says why (`journalFailure`): a step that is not journalled would break `--resume`.
public actor Campaign {
  public struct Options: Sendable {
    /// Links at once on the adapter.
    public var parallel: Int
    public var retry: RetryPolicy
    /// Asked before each new device is started; false starts no more (they stay pending) while the devices
    /// already started go on to their end, retries included. Unlike `requestStop()` nothing in flight is cut
    /// short: `reconcile --maintenance-window` closing mid-pass, where a transfer's retry pause must not leave a
    /// device in its bootloader until the next window. Nil: always.
    public var mayStart: (@Sendable () -> Bool)?
    /// How long a device may wait, all told, while a DFU bootloader answers at its address instead of it
    /// (`BootloaderAtAddress`: a neighbour's update in progress — another gateway's, on a shared site — or one
    /// left behind, which leaves on its inactivity timer), looked at again every `shadowLook`, before the
    /// attempt counts as failed. Such a wait spends no attempt and holds no link (`Campaign+Shadow`).
    public var shadowWait: Duration
    public var shadowLook: Duration
    /// When set, a shadowed device ends pending at once (journalled with `FailureKind.bootloaderAtAddress`)
    /// instead of waiting, for as long as these deferrals allow: a round of a shared run (`SiteCampaign`), whose
    /// later round takes it up again — the device whose bootloader shadows it may be a dead gateway's, which this
    /// gateway can take over only once the round ends.
    public var deferShadowed: ShadowDeferrals?

    public init(
      parallel: Int = 4, retry: RetryPolicy = RetryPolicy(), mayStart: (@Sendable () -> Bool)? = nil,
      shadowWait: Duration = FirmwareWork.defaultBootloaderQuarantine, shadowLook: Duration = .seconds(2),
      deferShadowed: ShadowDeferrals? = nil
    ) {
      self.deferShadowed = deferShadowed
      self.parallel = max(1, parallel)
      self.retry = retry
      self.mayStart = mayStart
      self.shadowWait = shadowWait
      self.shadowLook = shadowLook
    }
  }

  let work: any CampaignWork
  let targets: [Target]
  let context: CampaignContext
  let options: Options
  let sleep: @Sendable (Duration) async throws -> Void
  let continuation: AsyncStream<CampaignEvent>.Continuation
  public nonisolated let events: AsyncStream<CampaignEvent>
  var stopRequested = false
  /// The first journal write that failed; it stops the campaign.
  var journalFailure: JournalWriteError?
  /// Retry pauses in progress, by address: `requestStop()` cuts them short.
  var backoffs: [String: Task<Void, any Error>] = [:]
  /// Links at once: `options.parallel`, lowered when the adapter turns out to hold fewer and raised again
  /// after successes (`LinkLimitEstimate`, Campaign+Links).
  var links: LinkLimitEstimate
  /// Attempts running now (each holds or is opening a link), and when the last one ended (a connect made
  /// soon after and refused may have met that link's teardown).
  var inFlight = 0
  /// Behind a lock, not the actor, so that a connect reads it where it is made (`CampaignContext.connectStarting`).
  let lastAttemptEnd = Mutex<ContinuousClock.Instant?>(nil)
  /// What a device whose off-link wait a stop ended was last waiting for (`CampaignContext.waitOffLink`).
  var waitsOffLink: [String: String] = [:]
  /// For an attempt back from an off-link wait: the last end, the count of ends and the time when the wait
  /// ended, which a refused connect after it measures from (not from the attempt's start, perhaps minutes before).
  var connectBaselines: [String: ConnectBaseline] = [:]
  /// Devices whose last attempt was refused a link after holding one of its own (`attemptOnce`): the refusal
  /// is measured as coming right after an end of ours.
  var refusedAfterOwnLink: Set<String> = []
  /// Where a device's last refused connect was made, when its work said so (`CampaignContext.connectStarting`).
  var refusedConnects: [String: ConnectMade] = [:]
  /// Attempts that have ended having held (or opened) a link, ever: a refusal counts those that ended while
  /// it was on its way (`LinkLimitEstimate.refused`).
  var attemptsEnded = 0
  /// Link permits: a visit holds one while it attempts (or is about to), not while it pauses before a
  /// retry, waits out a bootloader's shadow (`Campaign+Shadow`) or waits off its link
  /// (`CampaignContext.waitOffLink`), so a busy device's backoff leaves its link
  /// to another device. At most `links.limit` are held,
  /// except that visits already holding one keep it when the limit drops.
  var permitsHeld = 0
  /// Visits waiting for a permit, first come first served (before any new device is started).
  var permitWaiters: [CheckedContinuation<Void, Never>] = []
  /// The start loop's wait for a free permit (`Campaign+Permits`).
  var launcherWaiter: CheckedContinuation<Void, Never>?
  var launcherWoken = false
  var launcherEnded = false
  /// Devices a bootloader shadowed, left pending for a later round (`Options.deferShadowed`).
  var deferred: Set<String> = []
  /// The last `CampaignEvent.linksInUse`.
  var lastLinksReport: LinksReport?

  public init(
    work: any CampaignWork, targets: [Target], journal: any CampaignJournal, run: String, options: Options,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    let (events, continuation) = AsyncStream.makeStream(of: CampaignEvent.self, bufferingPolicy: .unbounded)
    self.events = events
    self.continuation = continuation
    self.work = work
    self.targets = targets
    var context = CampaignContext(run: run, journal: journal, emit: { continuation.yield($0) })
    context.shadowDeferrals = options.deferShadowed
    self.context = context
    self.options = options
    self.sleep = sleep
    self.links = LinkLimitEstimate(asked: options.parallel)
  }

  /// Ctrl-C: no new device is started and no retry waits (a pause in progress ends now, leaving its device
  /// pending); links in flight finish their device; the work is told (`CampaignWork.stopRequested`).
  public func requestStop() {
    stopRequested = true
    for backoff in backoffs.values { backoff.cancel() }
    grantPermits()
    let work = work
    Task { await work.stopRequested() }
  }

  /// A journal write failed: remember the first failure and stop as for Ctrl-C.
  func journalFailed(_ error: JournalWriteError) {
    if journalFailure == nil { journalFailure = error }
    requestStop()
  }

  /// Starts devices in order while a link permit is free, until every device has ended or a stop leaves
  /// the rest pending. Besides a visit's end, a permit freed by a retry pause, an off-link wait or a raised
  /// limit starts the next device (`launcherNap`).
  public func start() async -> CampaignSummary {
    await work.prepare(targets, context: context)
    var outcomes: [String: DeviceOutcome] = [:]
    await withTaskGroup(of: (String, DeviceOutcome)?.self) { group in
      var queue = targets[...]
      var visits = 0
      func launch() -> Bool {
        guard !stopRequested, !queue.isEmpty, options.mayStart?() ?? true, takeFreePermit() else { return false }
        let target = queue.removeFirst()
        group.addTask { (target.address.description, await self.visit(target)) }
        visits += 1
        return true
      }
      while launch() {}
      group.addTask {
        await self.launcherNap()
        return nil
      }
      while visits > 0, let result = await group.next() {
        if let (address, outcome) = result {
          visits -= 1
          outcomes[address] = outcome
        } else if visits > 0 {
          group.addTask {
            await self.launcherNap()
            return nil
          }
        }
        while launch() {}
      }
      endLauncherNaps()
      for target in queue { outcomes[target.address.description] = .pending }
    }
    // A device left for a later round (`deferShadowed`) is not an interruption, unless a stop came: the round
    // ended as planned.
    var interrupted = outcomes.contains { $0.value == .pending && (stopRequested || !deferred.contains($0.key)) }
    do {
      try await context.journal.finish(run: context.run, status: interrupted ? "interrupted" : "finished")
    } catch let error as JournalWriteError {
      journalFailed(error)
      // The run's end is not journalled: it is not finished as far as `--resume` knows.
      interrupted = true
    } catch {}
    continuation.finish()
    var summary = CampaignSummary(
      run: context.run, outcomes: outcomes, interrupted: interrupted, journalFailure: journalFailure)
    summary.deferred = deferred.filter { outcomes[$0] == .pending }
    return summary
  }

  /// One device, with retries for transient failures. Started holding a link permit, which it gives back
  /// at its end, during a retry pause and during an off-link wait.
  func visit(_ target: Target) async -> DeviceOutcome {
    let outcome = await visitHoldingPermit(target)
    releasePermit()
    return outcome
  }

  private func visitHoldingPermit(_ target: Target) async -> DeviceOutcome {
    // A stop that came between this visit's launch and its start (the start loop launches several visits
    // at once; each reaches the actor later): the device is left as one never started — pending, untouched.
    if stopRequested { return .pending }
    let address = target.address.description
    var attempt = 1
    var idleLinkWaits = 0
    var teardown = TeardownWait()
    var shadowWaited = Duration.zero
    while true {
      // A refusal can be the teardown of a link of ours only if that link ended before this connect.
      let baseline = ConnectBaseline(end: lastAttemptEnd.withLock { $0 }, ended: attemptsEnded, at: .now)
      connectBaselines[address] = nil
      refusedAfterOwnLink.remove(address)
      refusedConnects[address] = nil
      do {
        let outcome = try await attemptOnce(target, attempt: attempt)
        // A device left pending by a stop during an off-link wait: the journal says what it waited for.
        let waited = outcome == .pending ? waitsOffLink[address].map { "stopped while \($0)" } : nil
        return await finish(address, outcome, detail: waited)
      } catch let error as LinkError
        where error.code == .tooManyLinks && !stopRequested
        && (inFlight > 0 || idleLinkWaits < Self.idleLinkWaitLimit)
      {
        // A link of ours still closing, or the adapter's link limit: a reason to wait, not a device failure.
        // After an off-link wait, what ended before the connect is counted from the wait's end.
        // After the attempt's own link, that link ended just before the refused connect; its end is counted
        // among those meanwhile, as its slot may still have been taken (the bound stays an upper one).
        let connect = connectBaselines.removeValue(forKey: address) ?? baseline
        let made = refusedConnects.removeValue(forKey: address)
        let ownLinkEnded = refusedAfterOwnLink.remove(address) != nil
        await waitAfterRefusal(
          address, sinceLastEnd: ownLinkEnded ? .zero : connect.sinceLastEnd(made),
          endedMeanwhile: attemptsEnded - connect.ended,
          teardown: &teardown, idleLinkWaits: &idleLinkWaits)
        if stopRequested { return await finish(address, .pending, detail: error.description) }
        continue
      } catch let error as LinkError where error.code == .tooManyLinks && stopRequested {
        // Refused a link after a stop: the device was not reached this attempt, so it is left pending for
        // `--resume`, not failed.
        return await finish(address, .pending, detail: error.description)
      } catch let error as JournalWriteError {
        // Where this device stands is unknown to the journal: it stays pending, and nothing more starts.
        journalFailed(error)
        continuation.yield(.finished(address: address, .pending))
        return .pending
      } catch {
        let kind = (error as? any ClassifiedFailure)?.failureKind ?? .permanent
        let reason = String(describing: error)
        if kind == .bootloaderAtAddress {
          switch await shadowed(address, reason: reason, waited: &shadowWaited) {
          case .end(let outcome): return outcome
          case .tryAgain: continue
          case .spendAttempt: break
          }
        }
        guard kind.isRetryable, attempt < options.retry.maximumAttempts, !stopRequested else {
          return await finish(address, .failed(reason, kind))
        }
        let delay = options.retry.delay(beforeAttempt: attempt + 1)
        continuation.yield(.retrying(address: address, attempt: attempt + 1, after: delay, reason: reason))
        guard await journalPending(address, reason: reason, kind: kind) else { return .pending }
        if stopRequested { return await finish(address, .pending, detail: reason) }
        // The pause holds no link: another device may use it meanwhile.
        releasePermit()
        await pause(address, delay)
        await takePermit()
        if stopRequested { return await finish(address, .pending, detail: reason) }
        attempt += 1
        teardown = TeardownWait()
      }
    }
  }
}
