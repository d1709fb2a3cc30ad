import Fleet
import Testing

@testable import FleetIO

/// Versioned migrations on a real PostgreSQL server (they run at
/// start; two versions of the tool on one database refuse clearly rather than corrupt it).
@Suite(.timeLimit(.minutes(5))) struct PostgresSchemaTests {
  @Test func migratesAFreshDatabaseOnceAndRecordsEachVersion() async throws {
    try await withPostgres { server in
      let connection = try await connect(server)
      let first = try await connection.session { try PostgresSchema.migrate($0) }
      let second = try await connection.session { try PostgresSchema.migrate($0) }
      #expect(first == 0)
      #expect(second == PostgresSchema.current)
      let versions = try await connection.session {
        try $0.query("SELECT version FROM bp_schema_version ORDER BY version").rows
      }
      #expect(versions == (1...PostgresSchema.current).map { [String($0)] })
      // The tables of every migration exist.
      let tables = try await connection.session {
        try $0.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'bp\\_%' ORDER BY tablename").rows.map {
          $0[0] ?? ""
        }
      }
      #expect(
        tables == [
          "bp_device", "bp_gateway", "bp_lease", "bp_registry_device", "bp_registry_reading", "bp_run",
          "bp_schema_version", "bp_shared_state", "bp_sighting",
        ])
      await connection.close()
    }
  }

  @Test func anOlderToolMigratesForwardAndANewerDatabaseIsRefusedUntouched() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let old = try await connect(server, database: url)
      // A tool that knows only migration 1.
      try await old.session { try PostgresSchema.migrate($0, known: Array(PostgresSchema.migrations.prefix(1))) }
      // This tool brings it to the current version...
      let now = try await connect(server, database: url)
      #expect(try await now.session { try PostgresSchema.migrate($0) } == 1)
      // ...after which the old tool refuses it, saying why, and changes nothing.
      let error = await #expect(throws: PostgresSchemaError.self) {
        try await old.session { try PostgresSchema.migrate($0, known: Array(PostgresSchema.migrations.prefix(1))) }
      }
      #expect(error == .newerDatabase(location: old.location, database: PostgresSchema.current, tool: 1))
      #expect(error?.description.contains("upgrade") == true)
      let count = try await now.session { try $0.query("SELECT count(*) FROM bp_schema_version").rows[0][0] }
      #expect(count == String(PostgresSchema.current))
      // And a PostgresJournal opened by it fails the same way before writing anything.
      await #expect(throws: PostgresSchemaError.self) {
        try await now.session { s in try s.query("INSERT INTO bp_schema_version (version) VALUES (99)") }
        _ = try await PostgresJournal(connection: now, gateway: "gw")
      }
      await old.close()
      await now.close()
    }
  }

  @Test func gatewaysMigratingAtOnceSerialiseOnTheAdvisoryLock() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      var connections: [PostgresConnection] = []
      for _ in 0..<6 { connections.append(try await connect(server, database: url)) }
      let found = try await withThrowingTaskGroup(of: Int.self) { group in
        for connection in connections {
          group.addTask { try await connection.session { try PostgresSchema.migrate($0) } }
        }
        return try await group.reduce(into: [Int]()) { $0.append($1) }
      }
      // Exactly one found an empty database; every other found it complete.
      #expect(found.sorted() == [0] + Array(repeating: PostgresSchema.current, count: 5))
      let versions = try await connections[0].session {
        try $0.query("SELECT version FROM bp_schema_version").rows.count
      }
      #expect(versions == PostgresSchema.current)
      for connection in connections { await connection.close() }
    }
  }

  /// A role that may only read (SELECT on the journal's tables, read-only transactions, no CREATE) opens a
  /// journal whose schema is current and reads a run's status, as `campaign status` does (once
  /// the migration's `CREATE TABLE IF NOT EXISTS` ran first and was refused).
  @Test func aReadOnlyRoleOpensACurrentJournalAndReadsARunsStatus() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let admin = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      _ = try await admin.createRun(
        NewJournalRun(kind: "apply", source: "p.json", adapter: "hci0", addresses: ["C2:00:00:00:00:01"], id: "site"))
      try await admin.connection.session { s in
        try s.script(
          """
          CREATE ROLE reader LOGIN PASSWORD 'read-only';
          ALTER ROLE reader SET default_transaction_read_only = on;
          REVOKE CREATE ON SCHEMA public FROM PUBLIC;
          GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;
          """)
      }
      let asReader = url.replacingOccurrences(of: "user=beacon", with: "user=reader")
      let reader = try await PostgresConnection.connect(
        try PostgresURL(asReader, origin: "--journal"), password: "read-only")
      // The role really cannot change the schema...
      await #expect(throws: PostgresError.self) {
        try await reader.session { try $0.script("CREATE TABLE IF NOT EXISTS bp_schema_version (version integer)") }
      }
      // ...and still opens the journal and reads the run.
      let journal = try await PostgresJournal(connection: reader, gateway: "monitor")
      let status = try #require(try await journal.status(run: "site", leaseSeconds: 30))
      #expect(status.kind == "apply" && status.devices.map(\.state) == ["pending"])
      await reader.close()
      await admin.connection.close()
    }
  }
}
