/// The shared journal's schema on PostgreSQL and its versioned migrations: they run at
/// start, and two versions of the tool on one database refuse clearly rather than corrupt it.
///
/// `bp_schema_version` holds one row per migration applied. At start, `migrate` reads the version (`version`:
/// a database already current is used as it is, with no DDL and no lock), else it takes a transaction-scoped
/// advisory lock (`lockKey`), so two gateways starting at once migrate one after the other — the second
/// finds the work done — and runs every missing migration in that one transaction (PostgreSQL's DDL is
/// transactional: a migration that fails leaves nothing behind). A database whose version is higher than
/// this tool knows is refused with `PostgresSchemaError.newerDatabase` rather than used: an older tool could
/// otherwise write rows a newer one reads wrongly [I: refuse any newer version, even one that only added a
/// table; a compatibility window can be added by comparing with a "readable since" version instead].
///
/// Tables are prefixed `bp_` so the journal can share a database with other applications.
enum PostgresSchema {
  /// `pg_advisory_xact_lock` key for migrations: "beac" in ASCII.
  static let lockKey = "1650811235"

  /// Migration N is `migrations[N - 1]`. Append only: never edit one that has shipped.
  static let migrations: [String] = [
    // 1: the journal, as the SQLite journal's v1+v2 (runs, devices with address type); `gateway` is the
    // gateway that last recorded the row, for `campaign status`.
    """
    CREATE TABLE bp_run (
      id text PRIMARY KEY, kind text NOT NULL, source text NOT NULL, adapter text NOT NULL,
      started_at timestamptz NOT NULL, finished_at timestamptz, status text NOT NULL);
    CREATE TABLE bp_device (
      run_id text NOT NULL REFERENCES bp_run (id) ON DELETE CASCADE, address text NOT NULL, state text NOT NULL,
      step text, attempts integer NOT NULL DEFAULT 0, writes integer NOT NULL DEFAULT 0, changes text, detail text,
      failure_kind text, updated_at timestamptz NOT NULL, address_type text, gateway text,
      PRIMARY KEY (run_id, address));
    """,
    // 2: coordination of several gateways: a lease per device being worked on, what each gateway hears, and
    // each gateway's heartbeat in a run (renewed with its leases; a gateway without one is gone).
    """
    CREATE TABLE bp_gateway (
      run_id text NOT NULL REFERENCES bp_run (id) ON DELETE CASCADE, gateway text NOT NULL,
      joined_at timestamptz NOT NULL, heartbeat_at timestamptz NOT NULL, PRIMARY KEY (run_id, gateway));
    CREATE TABLE bp_lease (
      run_id text NOT NULL, address text NOT NULL, gateway text NOT NULL, expires_at timestamptz NOT NULL,
      PRIMARY KEY (run_id, address), FOREIGN KEY (run_id, address) REFERENCES bp_device ON DELETE CASCADE);
    CREATE TABLE bp_sighting (
      gateway text NOT NULL, address text NOT NULL, rssi integer NOT NULL, seen_at timestamptz NOT NULL,
      PRIMARY KEY (gateway, address));
    CREATE INDEX bp_sighting_address ON bp_sighting (address, seen_at);
    """,
    // 3: the fleet registry, shared (`PostgresRegistryStore`; the SQLite journal's v3).
    """
    CREATE TABLE bp_registry_device (
      address text PRIMARY KEY, address_type text, name text, model text, hardware_version text,
      firmware_version text, first_seen timestamptz NOT NULL, last_seen timestamptz NOT NULL, last_rssi integer,
      battery_percent integer, battery_millivolts integer, frames text NOT NULL DEFAULT '[]',
      configuration_hash text, configuration_read_at timestamptz);
    CREATE TABLE bp_registry_reading (
      id bigserial PRIMARY KEY, address text NOT NULL REFERENCES bp_registry_device (address) ON DELETE CASCADE,
      at timestamptz NOT NULL, rssi integer, battery_percent integer, battery_millivolts integer);
    CREATE INDEX bp_registry_reading_device ON bp_registry_reading (address, at);
    """,
    // 4: what each run was made from (`Fleet.RunRecipe`; the SQLite journal's v5). NULL in runs made before,
    // which are accepted as they are.
    """
    ALTER TABLE bp_run ADD COLUMN recipe text;
    """,
    // 5: leases held by a process instance, with a fencing token (PostgresSchema+Leases.swift).
    instanceLeases,
    // 6: the beacon identities each registry device showed (`Fleet.RegistryDevice.identities`, a JSON array;
    // the SQLite journal's v6). NULL for devices recorded before, and for devices that showed none.
    """
    ALTER TABLE bp_registry_device ADD COLUMN identities text;
    """,
    // 7: state several gateways change together, as JSON text under a key (`PostgresJournal.updateSharedGroup`):
    // a site's staged firmware rollouts (`reconcile --rollout` with a shared journal).
    """
    CREATE TABLE bp_shared_state (key text PRIMARY KEY, value text NOT NULL, updated_at timestamptz NOT NULL);
    """,
    // 8: the id of the last record made to each device row (`PostgresJournal.record(_:id:)`), so a record run
    // again after a COMMIT whose reply was lost counts its attempt and its write once.
    """
    ALTER TABLE bp_device ADD COLUMN last_update text;
    """,
    // 9: no new table: a firmware source's rollouts in bp_shared_state are changed together under the source's
    // advisory lock (`PostgresJournal.updateSharedGroup`), no longer under one row's lock, so a release that
    // takes only the row's lock must not share the database; as an older tool, it is refused.
    """
    COMMENT ON TABLE bp_shared_state IS 'beacon-provision: a group of keys is changed under its advisory lock';
    """,
  ]

  /// The schema version this tool writes and reads.
  static var current: Int { migrations.count }

  /// Brings the database to `current`, or refuses one that is newer. Returns the version found before.
  @discardableResult
  static func migrate(_ session: PostgresSession, known: [String] = migrations) throws -> Int {
    if let found = try version(session), found >= known.count {
      guard found == known.count else {
        throw PostgresSchemaError.newerDatabase(location: session.location, database: found, tool: known.count)
      }
      return found
    }
    return try session.transaction {
      try session.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey])
      try session.script(
        "CREATE TABLE IF NOT EXISTS bp_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
      )
      let found =
        Int(try session.query("SELECT COALESCE(MAX(version), 0) FROM bp_schema_version").rows[0][0] ?? "0") ?? 0
      guard found <= known.count else {
        throw PostgresSchemaError.newerDatabase(location: session.location, database: found, tool: known.count)
      }
      for index in found..<known.count {
        try session.script(known[index])
        try session.query("INSERT INTO bp_schema_version (version) VALUES ($1::integer)", [String(index + 1)])
      }
      return found
    }
  }
}

extension PostgresSchema {
  /// The schema version found, read without any DDL or lock; nil when no migration ever ran.
  ///
  /// `migrate` reads it first and changes nothing when the database is at its version already, so a role
  /// that may only read (SELECT on the `bp_` tables) can open the journal — `campaign status` for a monitoring
  /// account (a read-only role must not be made to run `CREATE TABLE IF NOT EXISTS`). Versions only
  /// grow, so a current version read without the lock stays current.
  static func version(_ session: PostgresSession) throws -> Int? {
    let present = try session.query("SELECT to_regclass('bp_schema_version') IS NOT NULL").rows.first?.first ?? nil
    guard present == "t" else { return nil }
    return Int(try session.query("SELECT COALESCE(MAX(version), 0) FROM bp_schema_version").rows[0][0] ?? "0") ?? 0
  }
}

/// The database's schema cannot be used by this tool.
public enum PostgresSchemaError: Error, Sendable, Hashable, CustomStringConvertible {
  case newerDatabase(location: String, database: Int, tool: Int)

  public var description: String {
    switch self {
    case .newerDatabase(let location, let database, let tool):
      "the journal \(location) has schema version \(database), newer than this beacon-provision knows (\(tool)): "
        + "another gateway runs a newer release; upgrade this one before it uses the shared journal (nothing was changed)"
    }
  }
}
