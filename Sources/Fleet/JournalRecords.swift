import BeaconCore
import Foundation
import GRDB
import JSON

/// The journal's rows as every `CampaignJournal` returns them: SQLite's `Journal` fetches them through GRDB,
/// `FleetIO.PostgresJournal` builds them with the public initialisers.
public struct JournalRun: Sendable, Codable, FetchableRecord, Hashable {
  public var id: String
  public var kind: String
  public var source: String
  public var adapter: String
  public var startedAt: Date
  public var finishedAt: Date?
  public var status: String
  /// What the run was made from (`RunRecipe.text`); nil for runs journalled before it was recorded.
  public var recipe: String?

  public init(
    id: String, kind: String, source: String, adapter: String, startedAt: Date, finishedAt: Date?, status: String,
    recipe: String? = nil
  ) {
    (self.id, self.kind, self.source, self.adapter, self.startedAt, self.finishedAt, self.status) =
      (id, kind, source, adapter, startedAt, finishedAt, status)
    self.recipe = recipe
  }
}

public struct JournalDevice: Sendable, Codable, FetchableRecord, Hashable {
  public var runId: String
  public var address: String
  public var state: DeviceState
  public var step: String?
  public var attempts: Int
  public var writes: Int
  public var changes: String?
  public var detail: String?
  public var failureKind: FailureKind?
  public var updatedAt: Date
  /// The address type the run's scan heard (nil: not heard, or a run journalled before it was recorded).
  public var addressType: AddressType?

  public init(
    runId: String, address: String, state: DeviceState, step: String?, attempts: Int, writes: Int, changes: String?,
    detail: String?, failureKind: FailureKind?, updatedAt: Date, addressType: AddressType?
  ) {
    (self.runId, self.address, self.state, self.step, self.attempts, self.writes) = (
      runId, address, state, step, attempts, writes
    )
    (self.changes, self.detail, self.failureKind, self.updatedAt, self.addressType) =
      (changes, detail, failureKind, updatedAt, addressType)
  }

  /// Left mid-transfer: its last step was `transferring` and it has not finished, so it may be waiting in its
  /// DFU bootloader.
  public var isLeftMidTransfer: Bool { step == VisitStep.transferring.rawValue && !state.isFinal }

  /// Left mid-transfer by a visit that was cut short — its gateway died or stopped — rather than one that
  /// ended `failed` (that gateway gave up: a retry follows its failure's backoff) or only `planned`: what a
  /// shared run's claim still hands to another gateway (`CampaignPipeline.takeOver`).
  public var isCutShortMidTransfer: Bool { isLeftMidTransfer && state != .failed && state != .planned }

  /// The journalled changes, decoded.
  public var changeList: [JournalChange] {
    guard let changes else { return [] }
    return (try? JSONFileDecoder(file: "journal changes").decode([JournalChange].self, from: Array(changes.utf8))) ?? []
  }
}
