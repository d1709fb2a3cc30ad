import BeaconCore
import Profiles

/// `plan` and `apply` across a fleet: per device, connect and authenticate, read the configuration back,
/// check selection and device limits, diff against the profile, write one `cfg` message holding only the
/// changed keys, read back and compare. A bounded number of links at once; transient failures retried with
/// backoff; a wrong password never retried; every step journalled; `requestStop()` (Ctrl-C) lets links in
/// flight finish and leaves the rest pending for `--resume`.
public actor ApplyCampaign {
  public struct Options: Sendable {
    /// Links at once on the adapter.
    public var parallel: Int
    public var retry: RetryPolicy
    /// `plan`: read and diff only.
    public var dryRun: Bool

    public init(parallel: Int = 4, retry: RetryPolicy = RetryPolicy(), dryRun: Bool = false) {
      self.parallel = max(1, parallel)
      self.retry = retry
      self.dryRun = dryRun
    }
  }

  public struct Passwords: Sendable {
    public var current: Secret
    /// Rotate every device to this one.
    public var new: Secret?
    public init(current: Secret, new: Secret? = nil) {
      self.current = current
      self.new = new
    }
  }

  let profile: LoadedProfile
  let targets: [Target]
  let opener: any SessionOpener
  let journal: Journal
  let run: String
  let options: Options
  let passwords: Passwords
  let resolver: DesiredResolver
  let sleep: @Sendable (Duration) async throws -> Void
  let continuation: AsyncStream<CampaignEvent>.Continuation
  public nonisolated let events: AsyncStream<CampaignEvent>
  var stopRequested = false

  public init(
    profile: LoadedProfile, targets: [Target], opener: any SessionOpener, journal: Journal, run: String,
    options: Options, passwords: Passwords, resolver: DesiredResolver,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    self.profile = profile
    self.targets = targets
    self.opener = opener
    self.journal = journal
    self.run = run
    self.options = options
    self.passwords = passwords
    self.resolver = resolver
    self.sleep = sleep
    (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
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
    try? await journal.finish(run: run, status: interrupted ? "interrupted" : "finished")
    continuation.finish()
    return CampaignSummary(run: run, outcomes: outcomes, interrupted: interrupted)
  }

  /// One device, with retries for transient failures.
  func visit(_ target: Target) async -> DeviceOutcome {
    let address = target.address.description
    var attempt = 1
    while true {
      let outcome: DeviceOutcome
      do {
        outcome = try await attemptVisit(target, attempt: attempt)
      } catch {
        let kind = (error as? any ClassifiedFailure)?.failureKind ?? .permanent
        let reason = Self.describe(error)
        if kind == .transient, attempt < options.retry.maximumAttempts, !stopRequested {
          let delay = options.retry.delay(beforeAttempt: attempt + 1)
          continuation.yield(.retrying(address: address, attempt: attempt + 1, after: delay, reason: reason))
          try? await journal.record(run: run, address: address, state: .pending, step: "retry after: \(reason)", detail: reason, failureKind: kind)
          try? await sleep(delay)
          if !stopRequested {
            attempt += 1
            continue
          }
          return await finish(address, .pending, detail: reason)
        }
        outcome = .failed(reason, kind)
      }
      return await finish(address, outcome)
    }
  }

  func finish(_ address: String, _ outcome: DeviceOutcome, detail: String? = nil) async -> DeviceOutcome {
    var text = detail, kind: FailureKind? = nil
    switch outcome {
    case .failed(let reason, let k): text = reason; kind = k
    case .skipped(let reason): text = reason
    default: break
    }
    try? await journal.record(run: run, address: address, state: outcome.state, detail: text, failureKind: kind)
    continuation.yield(.finished(address: address, outcome))
    return outcome
  }

  func step(_ address: String, _ step: VisitStep, _ attempt: Int) async {
    continuation.yield(.step(address: address, step, attempt: attempt))
    try? await journal.record(run: run, address: address, state: .working, step: step.rawValue, countAttempt: step == .connecting)
  }

  static func describe(_ error: any Error) -> String {
    String(describing: error)
  }
}
