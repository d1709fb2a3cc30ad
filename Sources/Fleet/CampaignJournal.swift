import BeaconCore
import Foundation
import JSON

/// The storage seam between the SQLite journal and the PostgreSQL one several gateways share: what a campaign (`Campaign`, `ApplyCampaign`, `FirmwareWork`) and the
/// commands that start and resume runs need from a journal, whichever database holds it. `Journal` is the
/// embedded default (SQLite through GRDB, one gateway); `FleetIO.PostgresJournal` puts the same rows
/// on a PostgreSQL server that several gateways share. Both keep the same rules: every write to a device
/// recorded (with the values it replaces) before it is sent, never a password.
public protocol CampaignJournal: AnyObject, Sendable {
  /// Where the journal lives, for messages (a file path, or a server URL without its password).
  var location: String { get }
  /// Starts a run with every target pending; returns its id. Joining an existing run (`NewJournalRun.id`)
  /// made from another recipe throws `RunRecipeMismatch` and changes nothing.
  func createRun(_ run: NewJournalRun) async throws -> String
  /// Records a device's new state; a failure is a `JournalWriteError` (it stops the campaign).
  func record(_ update: JournalUpdate) async throws
  func finish(run: String, status: String) async throws
  func run(_ id: String) async throws -> JournalRun?
  func runs() async throws -> [JournalRun]
  func device(run: String, address: String) async throws -> JournalDevice?
  func devices(run: String) async throws -> [JournalDevice]
  /// Whether a record for a device proves this gateway still holds it (a shared journal's lease fence):
  /// then a visit's `connecting` record is made before its link opens, so a gateway that lost the device
  /// never connects to it (`CampaignContext.step(_:_:attempt:alongside:discard:)`). False by default.
  var fencesDevices: Bool { get }
}

extension CampaignJournal {
  public var fencesDevices: Bool { false }
}

/// A run about to start: what it does, from what, on which adapter, and its targets.
public struct NewJournalRun: Sendable, Hashable {
  /// The run's id when the caller chose it (`--run ID`, shared by several gateways); nil makes a new one.
  public var id: String?
  public var kind: String
  public var source: String
  public var adapter: String
  public var addresses: [String]
  /// The address type of each address the scan heard (by address text); the others are journalled NULL.
  public var addressTypes: [String: AddressType]
  public var now: Date
  /// What the run is made from (`RunRecipe.text`); joining a run made from another one is refused. Nil
  /// records none (tests, callers with nothing to compare).
  public var recipe: String?

  public init(
    kind: String, source: String, adapter: String, addresses: [String], addressTypes: [String: AddressType] = [:],
    now: Date = Date(), id: String? = nil, recipe: String? = nil
  ) {
    (self.id, self.recipe) = (id, recipe)
    (self.kind, self.source, self.adapter, self.addresses, self.addressTypes, self.now) =
      (kind, source, adapter, addresses, addressTypes, now)
  }
}

/// One device's new state in a run, and what else to record with it (nil leaves a column as it was, except
/// `detail` and `failureKind`, which are replaced).
public struct JournalUpdate: Sendable, Hashable {
  public var run: String
  public var address: String
  public var state: DeviceState
  public var step: String?
  public var changes: [JournalChange]?
  public var detail: String?
  public var failureKind: FailureKind?
  public var countAttempt: Bool
  public var countWrite: Bool

  /// The changes as the journal stores them: JSON with sorted keys.
  public var changesJSON: String? {
    get throws { try changes.map { try JSONValueEncoder(sortedKeys: true).text($0) } }
  }
}

extension CampaignJournal {
  /// Starts a run (`createRun(_:)` with its fields spelled out); `id` joins or names a shared run.
  public func createRun(
    kind: String, source: String, adapter: String, addresses: [String], addressTypes: [String: AddressType] = [:],
    now: Date = Date(), id: String? = nil, recipe: String? = nil
  ) async throws -> String {
    try await createRun(
      NewJournalRun(
        kind: kind, source: source, adapter: adapter, addresses: addresses, addressTypes: addressTypes, now: now,
        id: id,
        recipe: recipe))
  }

  /// Records a device's new state (and optionally its step, changes, detail, failure kind).
  public func record(
    run: String, address: String, state: DeviceState, step: String? = nil, changes: [JournalChange]? = nil,
    detail: String? = nil, failureKind: FailureKind? = nil, countAttempt: Bool = false, countWrite: Bool = false
  ) async throws {
    try await record(
      JournalUpdate(
        run: run, address: address, state: state, step: step, changes: changes, detail: detail,
        failureKind: failureKind,
        countAttempt: countAttempt, countWrite: countWrite))
  }
}
