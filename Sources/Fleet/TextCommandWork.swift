import BeaconCore
import Profiles

/// One text-stream device's `plan`/`apply` visit for a profile's `commands` section, on the
/// shared `Campaign` scheduler like a KBeacon's (`ProfileWork`):
/// 1. every item's template is filled in for the device (a failure fails the device before connecting);
/// 2. connect and set the text stream up; send each item's `query` and hold its answer to `expect`;
/// 3. `plan` journals and reports the items whose answers differ (`ResolvedTextCommand.change`), nothing
///    sent but queries;
/// 4. `apply` journals those changes, sends each one's `set` (every set journalled as a write), then sends
///    its query again: an answer still not as expected fails the device (`VerificationFailure`), naming
///    what the set and the query answered. A compliant device gets no `set` at all.
///
/// As for KBeacons (`LandedWrite`): when this run's journal row already holds changes — an earlier attempt
/// sent its sets and the link dropped before it could verify — and every query now answers as expected,
/// the device is reported updated with those changes, not compliant.
struct TextCommandWork: CampaignWork {
  let profile: LoadedProfile
  let opener: any TextCommandOpener
  let dryRun: Bool

  /// Items still not as expected after their set.
  struct VerificationFailure: Error, ClassifiedFailure, CustomStringConvertible {
    var mismatches: [String]
    var failureKind: FailureKind { .permanent }
    var description: String { "still differs after its set: " + mismatches.joined(separator: "; ") }
  }

  func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome {
    let address = target.address.description
    let items: [ResolvedTextCommand]
    switch TextCommandResolver.resolve(profile.profile.commands ?? [], profile.variables(for: address)) {
    case .failure(let f): return .failed(f.description, .permanent)
    case .success(let resolved): items = resolved
    }
    // The `connecting` record commits while the link opens (first on a fenced journal): no configuration is
    // written before `writing` is journalled.
    let session = try await context.step(
      address, .connecting, attempt: attempt, alongside: { try await opener.open(target) },
      discard: { await $0.close() })
    do {
      let outcome = try await visit(address, items, session: session, attempt: attempt, context: context)
      await session.close()
      return outcome
    } catch {
      await session.close()
      throw error
    }
  }

  func visit(
    _ address: String, _ items: [ResolvedTextCommand], session: any TextCommandSession, attempt: Int,
    context: CampaignContext
  ) async throws -> DeviceOutcome {
    let (run, journal) = (context.run, context.journal)
    context.announce(address, .reading, attempt: attempt)
    var differing: [(item: ResolvedTextCommand, answer: [String])] = []
    for item in items {
      let answer = try await Self.send(item.query, of: item, on: session)
      if !item.accepts(answer) { differing.append((item, answer)) }
    }
    let changes = differing.map { $0.item.change(answer: $0.answer) }
    if changes.isEmpty {
      guard !dryRun, let landed = try await Self.landed(journal: journal, run: run, address: address) else {
        return .compliant
      }
      return landed
    }
    if dryRun {
      try await journal.record(
        run: run, address: address, state: .planned, changes: changes.map(ProfileWork.journalChange))
      return .planned(changes)
    }

    // Sets an earlier attempt of this run sent before its link dropped answer as expected now, so they are not
    // among `changes`; this run wrote them, and they stay in the journal (with the values they replaced) and
    // in the report.
    let earlier = try await journal.device(run: run, address: address).map(Self.journalledChanges) ?? []
    let written = Self.merged(earlier: earlier, now: changes)
    try await context.step(address, .writing, attempt: attempt, changes: written.map(ProfileWork.journalChange))
    var setAnswers: [Int: [String]] = [:]
    for (number, (item, _)) in differing.enumerated() {
      // Each set is a write of its own: on a shared journal the `writing` record before it proves the lease
      // still has its margin (`LeaseFence`), so a gateway paused between two sets past its lease sends no more.
      if number > 0 {
        try await journal.record(run: run, address: address, state: .working, step: VisitStep.writing.rawValue)
      }
      setAnswers[item.index] = try await Self.send(item.set, of: item, on: session)
      try await journal.record(run: run, address: address, state: .working, step: "written", countWrite: true)
    }
    context.announce(address, .verifying, attempt: attempt)
    var mismatches: [String] = []
    for (item, _) in differing {
      let answer = try await Self.send(item.query, of: item, on: session)
      guard !item.accepts(answer) else { continue }
      let expected = item.secret ? ResolvedTextCommand.mask : item.expect.description
      mismatches.append(
        "command \(item.index) \(item.query) answered \"\(item.shown(answer))\", expected \"\(expected)\" "
          + "(\(item.shownSet) answered \"\(item.shown(setAnswers[item.index] ?? []))\")")
    }
    guard mismatches.isEmpty else { throw VerificationFailure(mismatches: mismatches) }
    return .updated(written)
  }

  static func send(_ command: String, of item: ResolvedTextCommand, on session: any TextCommandSession) async throws
    -> [String]
  {
    try await session.send(command, firstPacket: duration(item.timeoutFirst), interFragment: duration(item.timeoutNext))
  }

  static func duration(_ seconds: Double?) -> Duration? {
    seconds.map { .milliseconds(Int(($0 * 1000).rounded())) }
  }

  /// The sets an earlier attempt of this run sent, when its journal row holds changes (see the type's
  /// comment); their write is counted if the journal missed it.
  static func landed(journal: any CampaignJournal, run: String, address: String) async throws -> DeviceOutcome? {
    guard let row = try await journal.device(run: run, address: address), !row.changeList.isEmpty else { return nil }
    let changes = journalledChanges(row)
    if row.writes == 0 {
      try await journal.record(run: run, address: address, state: .working, step: "written", countWrite: true)
    }
    return .updated(changes)
  }

  /// The changes a journal row holds, as the items' changes (command index, query, answers).
  static func journalledChanges(_ row: JournalDevice) -> [ConfigChange] {
    row.changeList.map { entry in
      let index = Int(entry.scope.split(separator: " ").last ?? "") ?? 0
      return ConfigChange(
        scope: .command(index), key: entry.key, old: entry.old.map(LandedWrite.value), new: LandedWrite.value(entry.new)
      )
    }
  }

  /// `now`'s changes with the items only `earlier` holds; an item in both keeps the value it had before the
  /// run (`earlier`'s `old`). In command order.
  static func merged(earlier: [ConfigChange], now: [ConfigChange]) -> [ConfigChange] {
    let before = Dictionary(earlier.map { ("\($0.scope)/\($0.key)", $0) }, uniquingKeysWith: { a, _ in a })
    let current = Set(now.map { "\($0.scope)/\($0.key)" })
    let kept = earlier.filter { !current.contains("\($0.scope)/\($0.key)") }
    let updated = now.map { change in
      var change = change
      if let first = before["\(change.scope)/\(change.key)"] { change.old = first.old }
      return change
    }
    return (kept + updated).sorted()
  }
}
