import BeaconCore
import Fleet
import Foundation

/// The campaign journal on a PostgreSQL server that several gateways share: the same runs and
/// device rows as the SQLite `Journal`, behind the same `CampaignJournal` seam, so `Campaign` and its work
/// neither know nor care which one they write. Every statement is parameterised (`PostgresSession.query`);
/// like the SQLite journal it never holds a password (changes arrive masked, `JournalChange`).
///
/// Differences from the SQLite journal, each a choice [I]:
/// - `createRun` with a given id joins that run when it exists (several gateways start `apply --run ID`):
///   the run row is kept as the first gateway wrote it, and each gateway adds the devices it heard that the
///   run does not hold yet (`ON CONFLICT DO NOTHING`), so no gateway resets another's progress.
/// - Timestamps written after the start (`updatedAt`, `finishedAt`) are the server's `now()`, one clock for
///   every gateway.
/// - Each device row names the gateway that last recorded it (`campaign status`).
/// - A device this process claimed is written only while it holds the claim's lease (`LeaseFence`).
public final class PostgresJournal: CampaignJournal {
  public let connection: PostgresConnection
  /// This gateway's name in the shared journal (its rows, leases and sightings).
  public let gateway: String
  /// This process's own id, drawn at start: its leases are held under it, so two processes with one
  /// gateway name are two holders and cannot retake each other's leases [I: both run; the name still groups their sightings and rows].
  public let instance: String
  public var location: String { connection.location }
  /// A claimed device's records are fenced by its lease (`LeaseFence`).
  public var fencesDevices: Bool { true }
  let fences = LeaseFences()

  /// Uses `connection`, migrating its schema first (`PostgresSchema.migrate`).
  public init(connection: PostgresConnection, gateway: String, instance: String = PostgresJournal.newInstance())
    async throws
  {
    self.connection = connection
    self.gateway = gateway
    self.instance = instance
    try await connection.session { try PostgresSchema.migrate($0) }
  }

  /// A fresh instance id: the host's process id and a random UUID (the pid only helps a reader).
  public static func newInstance() -> String {
    "\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.lowercased())"
  }

  /// Joining a run made from another recipe (`RunRecipe`) is refused in the same transaction that would add
  /// this gateway's devices, so of two gateways joining at once with different profiles one is refused (the
  /// INSERT waits for the other's uncommitted row; a run's recipe is never changed, so no row lock is kept).
  public func createRun(_ new: NewJournalRun) async throws -> String {
    let id = new.id ?? Journal.runID(new.now)
    let (gateway, location) = (gateway, location)
    try await write { s in
      try s.transaction {
        try s.query(
          """
          INSERT INTO bp_run (id, kind, source, adapter, started_at, status, recipe)
            VALUES ($1, $2, $3, $4, to_timestamp($5::float8), 'running', $6) ON CONFLICT (id) DO NOTHING
          """, [id, new.kind, new.source, new.adapter, String(new.now.timeIntervalSince1970), new.recipe])
        let recorded = try s.query("SELECT recipe FROM bp_run WHERE id = $1", [id]).rows.first?.first ?? nil
        try RunRecipe.check(run: id, location: location, recorded: recorded, given: new.recipe)
        for address in new.addresses {
          try s.query(
            """
            INSERT INTO bp_device (run_id, address, state, address_type, updated_at, gateway)
              VALUES ($1, $2, 'pending', $3, to_timestamp($4::float8), $5) ON CONFLICT (run_id, address) DO NOTHING
            """, [id, address, new.addressTypes[address]?.description, String(new.now.timeIntervalSince1970), gateway])
        }
      }
    }
    return id
  }

  /// Records a device's new state. A device this process claimed (`LeaseFence`) is recorded only while
  /// its lease is this instance's, of the claim's generation and unexpired (with `writeMargin` left before
  /// a write to the device), in the same statement: otherwise nothing changes and `LeaseLostError` is
  /// thrown.
  public func record(_ u: JournalUpdate) async throws {
    try await record(u, id: UUID().uuidString)
  }

  /// `record(_:)` as one call named `id`: run again on a new connection after a COMMIT whose reply was lost
  /// (`PostgresReconnect`), the update finds its own id on the row and counts the attempt and write once.
  func record(_ u: JournalUpdate, id: String) async throws {
    let changes = try u.changesJSON
    let (gateway, instance) = (gateway, instance)
    let fence = fences.fence(run: u.run, address: u.address)
    let margin = fence.map { u.step.map(LeaseFence.deviceWriteSteps.contains) == true ? $0.writeMargin : 0 } ?? 0
    let affected = try await write { s in
      try s.query(
        """
        UPDATE bp_device SET state = $1, step = COALESCE($2, step), changes = COALESCE($3, changes), detail = $4,
          failure_kind = $5, attempts = attempts + CASE WHEN last_update IS DISTINCT FROM $14 THEN $6::integer ELSE 0 END,
          writes = writes + CASE WHEN last_update IS DISTINCT FROM $14 THEN $7::integer ELSE 0 END, last_update = $14,
          updated_at = now(), gateway = $8 WHERE run_id = $9 AND address = $10 AND ($11::bigint IS NULL OR EXISTS (
            SELECT 1 FROM bp_lease l WHERE l.run_id = $9 AND l.address = $10 AND l.instance = $12
              AND l.generation = $11::bigint AND l.expires_at > now() + make_interval(secs => $13::float8)))
        """,
        [
          u.state.rawValue, u.step, changes, u.detail, u.failureKind?.rawValue, u.countAttempt ? "1" : "0",
          u.countWrite ? "1" : "0", gateway, u.run, u.address, fence?.generation, instance, String(margin), id,
        ]
      ).affected
    }
    if fence != nil, affected == 0 {
      fences.lose(run: u.run, address: u.address)
      throw LeaseLostError(address: u.address, run: u.run)
    }
  }

  /// Fences the device's writes with the lease just claimed (`GatewayCoordinator.claim`); nil lifts it.
  func fence(run: String, address: String, _ fence: LeaseFence?) { fences.set(run: run, address: address, fence) }

  /// The devices whose lease was found lost since the last call (each once).
  public func lostLeases() -> Set<String> { fences.takeLost() }

  /// Ends a gateway's part of the run. Several gateways (and each round of one, `SiteCampaign`) end their
  /// part at different times, so "finished" is written only once no device of the run is pending or being
  /// worked on; until then the run stays "running" [I]. "interrupted" (Ctrl-C, a journal failure) is
  /// written as it comes. `campaign status` reads the devices themselves to tell whether the site is done.
  public func finish(run: String, status: String) async throws {
    try await write { s in
      try s.query(
        """
        UPDATE bp_run SET finished_at = now(), status = CASE WHEN $1 = 'finished' AND EXISTS (
            SELECT 1 FROM bp_device WHERE run_id = $2 AND state IN ('pending', 'working')) THEN 'running' ELSE $1 END
          WHERE id = $2
        """, [status, run])
    }
  }

  public func run(_ id: String) async throws -> JournalRun? {
    try await connection.session { s in
      try s.query("SELECT \(Self.runColumns) FROM bp_run WHERE id = $1", [id]).records.map(Self.run).first
    }
  }

  public func runs() async throws -> [JournalRun] {
    try await connection.session { s in
      try s.query("SELECT \(Self.runColumns) FROM bp_run ORDER BY started_at DESC").records.map(Self.run)
    }
  }

  public func device(run: String, address: String) async throws -> JournalDevice? {
    try await connection.session { s in
      try s.query("SELECT \(Self.deviceColumns) FROM bp_device WHERE run_id = $1 AND address = $2", [run, address])
        .records.compactMap(Self.device).first
    }
  }

  public func devices(run: String) async throws -> [JournalDevice] {
    try await connection.session { s in
      try s.query("SELECT \(Self.deviceColumns) FROM bp_device WHERE run_id = $1 ORDER BY address", [run])
        .records.compactMap(Self.device)
    }
  }

  /// Every write goes through here, so a failure reaches the campaign as a `JournalWriteError` (a refused
  /// `RunRecipeMismatch` stays itself: the journal is fine, the run is another one; so does an error a shared
  /// change's own closure threw, `SharedChangeRefusal`).
  @discardableResult
  func write<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
    do {
      return try await connection.session(body)
    } catch let mismatch as RunRecipeMismatch {
      throw mismatch
    } catch let refusal as SharedChangeRefusal {
      throw refusal
    } catch {
      throw JournalWriteError(location: location, reason: String(describing: error))
    }
  }
}

/// Reading the journal's rows back from their text form (`PostgresRows.records`).
extension PostgresJournal {
  static let runColumns =
    "id, kind, source, adapter, extract(epoch FROM started_at)::float8 AS started_at, "
    + "extract(epoch FROM finished_at)::float8 AS finished_at, status, recipe"
  static let deviceColumns =
    "run_id, address, state, step, attempts, writes, changes, detail, failure_kind, "
    + "extract(epoch FROM updated_at)::float8 AS updated_at, address_type, gateway"

  static func run(_ r: [String: String]) -> JournalRun {
    JournalRun(
      id: r["id"] ?? "", kind: r["kind"] ?? "", source: r["source"] ?? "", adapter: r["adapter"] ?? "",
      startedAt: date(r["started_at"]) ?? Date(timeIntervalSince1970: 0), finishedAt: date(r["finished_at"]),
      status: r["status"] ?? "", recipe: r["recipe"])
  }

  /// A device row; nil for a state this tool does not know (a newer tool's row is refused by the schema
  /// version before it gets here).
  static func device(_ r: [String: String]) -> JournalDevice? {
    guard let state = r["state"].flatMap(DeviceState.init(rawValue:)) else { return nil }
    return JournalDevice(
      runId: r["run_id"] ?? "", address: r["address"] ?? "", state: state, step: r["step"],
      attempts: Int(r["attempts"] ?? "") ?? 0, writes: Int(r["writes"] ?? "") ?? 0, changes: r["changes"],
      detail: r["detail"], failureKind: r["failure_kind"].flatMap(FailureKind.init(rawValue:)),
      updatedAt: date(r["updated_at"]) ?? Date(timeIntervalSince1970: 0),
      addressType: r["address_type"].flatMap { $0 == "public" ? .public : $0 == "random" ? .random : nil })
  }

  static func date(_ text: String?) -> Date? { text.flatMap(Double.init).map(Date.init(timeIntervalSince1970:)) }
}
