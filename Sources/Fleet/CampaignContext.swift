import BeaconCore
import Profiles

/// What a campaign does to one device in one attempt. Throwing a `ClassifiedFailure` of kind `transient`
/// asks for another attempt; anything else ends the device's visit.
public protocol CampaignWork: Sendable {
  /// Before the campaign starts any of `targets`: what the work must know of the run's journal first (a
  /// resumed firmware run's devices left in their bootloader). Nothing by default.
  func prepare(_ targets: [Target], context: CampaignContext) async
  func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome
  /// The campaign was asked to stop (Ctrl-C): an attempt still waiting on something of the work's own (not
  /// a link) should give up and return `.pending`.
  func stopRequested() async
}

extension CampaignWork {
  public func prepare(_ targets: [Target], context: CampaignContext) async {}
  public func stopRequested() async {}
}

/// What work may tell the campaign while it runs: its steps and transfer progress, and journal rows.
public struct CampaignContext: Sendable {
  public let run: String
  public let journal: any CampaignJournal
  let emit: @Sendable (CampaignEvent) -> Void
  /// The campaign's `waitOffLink` for this attempt (nil: the wait just runs, as in a context of no campaign).
  var offLink: (@Sendable (String, String, @escaping OffLinkWait) async -> Bool)? = nil
  /// Told when the attempt announces a step past `connecting`: from then on it has held a link of its own, so
  /// a connect it makes later follows that link's close (`Campaign.attemptOnce`).
  var steppedPastConnect: (@Sendable () -> Void)? = nil
  /// A round of a shared run (`Campaign.Options.deferShadowed`): a device a neighbour's bootloader shadows is left
  /// for a later round while its deferrals allow (`defersShadow(of:)`).
  var shadowDeferrals: ShadowDeferrals? = nil
  /// Told as the attempt is about to open its link: its `connecting` step said and, where the record comes first,
  /// recorded. A refused connect is measured from here (`ConnectMade`).
  var connectStarting: (@Sendable () -> Void)? = nil

  /// A wait of the work's own, given how to say a new reason for it (`waitOffLink`).
  public typealias OffLinkWait = @Sendable (_ reasonChanged: @escaping @Sendable (String) -> Void) async -> Bool

  /// Journals the step — with `changes`, the values about to be written, in the same record — and announces
  /// it. Throws `JournalWriteError` when the step cannot be journalled: the visit must not go on unrecorded.
  /// `recordedAs`: the step the row goes on saying instead, where it must outlive this one (a device left
  /// mid-transfer stays `transferring` until its transfer starts again: it may be in its bootloader).
  public func step(
    _ address: String, _ step: VisitStep, attempt: Int, changes: [JournalChange]? = nil, recordedAs: VisitStep? = nil
  ) async throws {
    say(address, step, attempt: attempt)
    try await journal.record(
      run: run, address: address, state: .working, step: (recordedAs ?? step).rawValue, changes: changes,
      countAttempt: step == .connecting)
    if step == .connecting { connectStarting?() }
  }

  /// Journals and announces `step` while `body` runs beside the record (`record(_:alongside:discard:)`) —
  /// except on a journal whose records prove the lease (`CampaignJournal.fencesDevices`): there the record
  /// comes first, so a gateway that lost the device never opens a link to it (a KBeacon takes one link,
  /// and authenticating sets its clock).
  public func step<T: Sendable>(
    _ address: String, _ step: VisitStep, attempt: Int, alongside body: () async throws -> T,
    discard: (T) async -> Void = { _ in }
  ) async throws -> T {
    say(address, step, attempt: attempt)
    let update = JournalUpdate(
      run: run, address: address, state: .working, step: step.rawValue, countAttempt: step == .connecting,
      countWrite: false)
    if journal.fencesDevices {
      try await journal.record(update)
      if step == .connecting { connectStarting?() }
      return try await body()
    }
    if step == .connecting { connectStarting?() }
    return try await record(update, alongside: body, discard: discard)
  }

  /// Journals `update` while `body` runs beside the record, for radio work that needs no record before it
  /// starts: `connecting` beside opening the link (no configuration is written to the device before the
  /// `writing` record, and a resume reads a device again either way), `written` beside the read-back (a
  /// resume that finds `writing` and the values on the device counts the write as landed: `LandedWrite`). The
  /// commit — one at a time on the journal's connection, a server round trip on a shared journal — then costs
  /// the visit nothing while the radio is slower. Both are done before this returns, and the journal's failure
  /// wins over `body`'s (it stops the campaign); a value `body` made that is not returned goes to `discard`
  /// (a link to close). A step that must be durable before the radio acts (`writing`) uses `step(_:_:attempt:changes:)`.
  public func record<T: Sendable>(
    _ update: JournalUpdate, alongside body: () async throws -> T, discard: (T) async -> Void = { _ in }
  ) async throws -> T {
    async let recorded: Void = journal.record(update)
    let value: T
    do {
      value = try await body()
    } catch {
      try await recorded
      throw error
    }
    do {
      try await recorded
    } catch {
      await discard(value)
      throw error
    }
    return value
  }

  /// Announces a step that the device's journal row already stands for, without a record of its own:
  /// `.reading` (the row says `connecting` until a write is planned; nothing has been sent, and a resume
  /// reads such a device again either way) and `.verifying` right after `written` (the row goes on saying
  /// the write landed, which is what a resume needs to know). Each record is a commit that every link's
  /// visit waits for, one at a time on the journal's connection [I: a visit made nine; these two steps and a
  /// second `writing` record, now one record with the changes, were three of them]. `step(_:_:attempt:changes:)`
  /// is the call for a step that must be durable.
  public func announce(_ address: String, _ step: VisitStep, attempt: Int) {
    say(address, step, attempt: attempt)
  }

  private func say(_ address: String, _ step: VisitStep, attempt: Int) {
    if step != .connecting { steppedPastConnect?() }
    emit(.step(address: address, step, attempt: attempt))
  }

  /// Runs `wait` — a wait of the work's own that may be long, before the attempt opens a link — as a wait
  /// that holds none: it is announced (`CampaignEvent.waiting` with `reason`, and again with each reason
  /// `wait` passes to its `reasonChanged`), the attempt's link permit goes to another device meanwhile, and
  /// afterwards the attempt queues for a permit again. False when `wait` returned false or the campaign was
  /// stopped meanwhile (Ctrl-C: the device should end pending).
  public func waitOffLink(_ address: String, reason: String, _ wait: @escaping OffLinkWait) async -> Bool {
    guard let offLink else {
      emit(.waiting(address: address, reason: reason))
      return await wait { emit(.waiting(address: address, reason: $0)) }
    }
    return await offLink(address, reason, wait)
  }

  /// Whether a shadow met now at `address` would leave the device for a later round: work that would wait a
  /// shadow out itself throws it instead, since the round must end for this gateway to take over a dead one's
  /// device, whose bootloader may be the shadow. False outside a shared run's round, and once the device's
  /// deferrals are spent (its attempts would be spent instead: better wait).
  public func defersShadow(of address: String) -> Bool {
    shadowDeferrals?.wouldDefer(address) ?? false
  }

  public func progress(_ address: String, done: Int, total: Int, bytesPerSecond: Double) {
    emit(.progress(address: address, done: done, total: total, bytesPerSecond: bytesPerSecond))
  }
}
