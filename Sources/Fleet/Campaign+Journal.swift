/// How a visit's end and its pauses reach the journal (`CampaignJournal`): the record that lets `--resume` know where
/// each device stands. A record that cannot be written leaves the device pending (its end unknown to `--resume`)
/// and stops the campaign (`journalFailed`).
extension Campaign {
  /// Journals `outcome` as the device's end and announces it; pending instead when the journal refused the record.
  func finish(_ address: String, _ outcome: DeviceOutcome, detail: String? = nil) async -> DeviceOutcome {
    var text = detail
    var kind: FailureKind? = nil
    switch outcome {
    case .failed(let reason, let k): (text, kind) = (reason, k)
    case .skipped(let reason): text = reason
    default: break
    }
    guard await record(address, outcome.state, detail: text, kind: kind) else { return .pending }
    continuation.yield(.finished(address: address, outcome))
    return outcome
  }

  /// Journals the device pending with why (`reason`, `kind`) before a pause that keeps its visit open (a retry's
  /// delay, a shadow's look, a deferral to a later round). False when the journal refused the record: the device
  /// was then announced pending, and its visit ends there.
  func journalPending(_ address: String, reason: String, kind: FailureKind) async -> Bool {
    await record(address, .pending, detail: reason, kind: kind)
  }

  /// Journals the device's `state`; false when the journal refused the record: the device's end is then unknown
  /// to `--resume`, so it is announced pending (and a `JournalWriteError` stops the campaign).
  private func record(_ address: String, _ state: DeviceState, detail: String?, kind: FailureKind?) async -> Bool {
    do {
      try await context.journal.record(
        run: context.run, address: address, state: state, detail: detail, failureKind: kind)
      return true
    } catch {
      if let error = error as? JournalWriteError { journalFailed(error) }
      continuation.yield(.finished(address: address, .pending))
      return false
    }
  }
}
