import Profiles

/// What a device visit ended with.
public enum DeviceOutcome: Sendable, Hashable {
  /// Read back, nothing differed: no write.
  case compliant
  /// `plan`: these would change.
  case planned([ConfigChange])
  /// Written with one `cfg` message and verified by read-back.
  case updated([ConfigChange])
  /// Not for this profile; why.
  case skipped(String)
  case failed(String, FailureKind)
  /// Stopped (Ctrl-C) before this device was visited or finished.
  case pending

  public var state: DeviceState {
    switch self {
    case .compliant: .compliant
    case .planned: .planned
    case .updated: .verified
    case .skipped: .skipped
    case .failed: .failed
    case .pending: .pending
    }
  }
}

/// The steps of one visit, for progress displays and the journal.
public enum VisitStep: String, Sendable {
  case connecting, reading, writing, verifying, reconnecting
  /// DFU: entering the bootloader and sending images.
  case transferring
}

/// Progress of a campaign, in order, for the live view and `--json` output.
public enum CampaignEvent: Sendable, Hashable {
  case step(address: String, VisitStep, attempt: Int)
  case retrying(address: String, attempt: Int, after: Duration, reason: String)
  /// The device waits for something of the work's own, not a link (a firmware campaign: a neighbouring
  /// address, `AddressNeighbourhood`), holding no link meanwhile; `reason` says what for.
  case waiting(address: String, reason: String)
  case finished(address: String, DeviceOutcome)
  /// The adapter holds only `links` links at once, fewer than the `asked` parallelism: devices wait for a
  /// free link, and the campaign runs `links` at once from here on.
  case linkLimit(links: Int, asked: Int)
  /// After a lowered limit, successes raised it again to `links` (one link at a time, up to `asked`, and
  /// lowered again if the adapter refuses): said once per campaign.
  case linkLimitRaised(links: Int, asked: Int)
  /// Attempts in flight (each holds or is opening a link) and the link limit, whenever either changes.
  case linksInUse(Int, limit: Int)
  /// A transfer's progress (DFU): bytes confirmed of the total, and the rate so far.
  case progress(address: String, done: Int, total: Int, bytesPerSecond: Double)
}

/// The end of a campaign.
public struct CampaignSummary: Sendable, Hashable {
  public var run: String
  public var outcomes: [String: DeviceOutcome]
  /// Ctrl-C stopped it before every device was visited.
  public var interrupted: Bool
  /// The journal could not be written, which stopped the run (`interrupted` is then true too).
  public var journalFailure: JournalWriteError? = nil
  /// Devices a DFU bootloader shadowed that this round left pending for a later one
  /// (`Campaign.Options.deferShadowed`).
  public var deferred: Set<String> = []

  public init(
    run: String, outcomes: [String: DeviceOutcome], interrupted: Bool, journalFailure: JournalWriteError? = nil
  ) {
    (self.run, self.outcomes, self.interrupted, self.journalFailure) = (run, outcomes, interrupted, journalFailure)
  }

  public func count(_ state: DeviceState) -> Int { outcomes.values.filter { $0.state == state }.count }
  public var changedSomething: Bool {
    outcomes.values.contains { if case .planned = $0 { true } else if case .updated = $0 { true } else { false } }
  }
  public var failed: Bool { outcomes.values.contains { $0.state == .failed } }
}
