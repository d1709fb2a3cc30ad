import BeaconCore
import Profiles

/// What a campaign does to one device in one attempt. Throwing a `ClassifiedFailure` of kind `transient`
/// asks for another attempt; anything else ends the device's visit.
public protocol CampaignWork: Sendable {
  func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome
}

/// What work may tell the campaign while it runs: its steps and transfer progress, and journal rows.
public struct CampaignContext: Sendable {
  public let run: String
  public let journal: Journal
  let emit: @Sendable (CampaignEvent) -> Void

  public func step(_ address: String, _ step: VisitStep, attempt: Int) async {
    emit(.step(address: address, step, attempt: attempt))
    try? await journal.record(run: run, address: address, state: .working, step: step.rawValue, countAttempt: step == .connecting)
  }

  public func progress(_ address: String, done: Int, total: Int, bytesPerSecond: Double) {
    emit(.progress(address: address, done: done, total: total, bytesPerSecond: bytesPerSecond))
  }
}

/// The scheduler every fleet campaign (`apply`, `plan`, `dfu`) shares: a bounded number of links at once,
/// transient failures retried with backoff (`RetryPolicy`), a wrong password never retried, each device's
/// end journalled, progress as events, and `requestStop()` (Ctrl-C) letting links in flight finish while
/// the rest stay pending for `--resume`.
public actor Campaign {
  public struct Options: Sendable {
    /// Links at once on the adapter.
    public var parallel: Int
    public var retry: RetryPolicy

    public init(parallel: Int = 4, retry: RetryPolicy = RetryPolicy()) {
      self.parallel = max(1, parallel)
      self.retry = retry
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

  public init(
    work: any CampaignWork, targets: [Target], journal: Journal, run: String, options: Options,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    let (events, continuation) = AsyncStream.makeStream(of: CampaignEvent.self, bufferingPolicy: .unbounded)
    self.events = events
    self.continuation = continuation
    self.work = work
    self.targets = targets
    self.context = CampaignContext(run: run, journal: journal, emit: { continuation.yield($0) })
    self.options = options
    self.sleep = sleep
  }

  /// Ctrl-C: no new device is started and no retry waits; links in flight finish their device.
  public func requestStop() { stopRequested = true }

  public func start() async -> CampaignSummary {
    var outcomes: [String: DeviceOutcome] = [:]
    await withTaskGroup(of: (String, DeviceOutcome).self) { group in
      var queue = targets[...]
      func launch() -> Bool {
        guard !stopRequested, let target = queue.popFirst() else { return false }
        group.addTask { (target.address.description, await self.visit(target)) }
        return true
      }
      for _ in 0..<options.parallel where launch() {}
      while let (address, outcome) = await group.next() {
        outcomes[address] = outcome
        _ = launch()
      }
      for target in queue { outcomes[target.address.description] = .pending }
    }
    let interrupted = outcomes.values.contains(.pending)
    try? await context.journal.finish(run: context.run, status: interrupted ? "interrupted" : "finished")
    continuation.finish()
    return CampaignSummary(run: context.run, outcomes: outcomes, interrupted: interrupted)
  }

  /// One device, with retries for transient failures.
  func visit(_ target: Target) async -> DeviceOutcome {
    let address = target.address.description
    var attempt = 1
    while true {
      do {
        return await finish(address, try await work.attempt(target, attempt: attempt, context: context))
      } catch {
        let kind = (error as? any ClassifiedFailure)?.failureKind ?? .permanent
        let reason = String(describing: error)
        guard kind == .transient, attempt < options.retry.maximumAttempts, !stopRequested else {
          return await finish(address, .failed(reason, kind))
        }
        let delay = options.retry.delay(beforeAttempt: attempt + 1)
        continuation.yield(.retrying(address: address, attempt: attempt + 1, after: delay, reason: reason))
        try? await context.journal.record(run: context.run, address: address, state: .pending, detail: reason, failureKind: kind)
        try? await sleep(delay)
        if stopRequested { return await finish(address, .pending, detail: reason) }
        attempt += 1
      }
    }
  }

  func finish(_ address: String, _ outcome: DeviceOutcome, detail: String? = nil) async -> DeviceOutcome {
    var text = detail, kind: FailureKind? = nil
    switch outcome {
    case .failed(let reason, let k): (text, kind) = (reason, k)
    case .skipped(let reason): text = reason
    default: break
    }
    try? await context.journal.record(run: context.run, address: address, state: outcome.state, detail: text, failureKind: kind)
    continuation.yield(.finished(address: address, outcome))
    return outcome
  }
}
