import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

/// `campaign status` as a monitoring account runs it: a PostgreSQL role that may only read the journal's tables
/// (the schema migration's CREATE once ran first and was refused).
@Suite(.timeLimit(.minutes(2))) struct CampaignStatusReadOnlyTests {
  @Test func aReadOnlyRoleRunsCampaignStatus() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let folder = try LocalTools.temporaryDirectory("status-read-only")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "gw-1")
    _ = try await journal.createRun(
      kind: "apply", source: "site.json", adapter: "hci0", addresses: ["C2:00:00:00:00:01"], id: "site")
    try await journal.record(run: "site", address: "C2:00:00:00:00:01", state: .verified, countWrite: true)
    try await journal.connection.session { s in
      try s.script(
        """
        CREATE ROLE monitor LOGIN PASSWORD 'read-only';
        ALTER ROLE monitor SET default_transaction_read_only = on;
        REVOKE CREATE ON SCHEMA public FROM PUBLIC;
        GRANT SELECT ON ALL TABLES IN SCHEMA public TO monitor;
        """)
    }
    await journal.connection.close()
    try "read-only\n".write(toFile: folder + "/password", atomically: true, encoding: .utf8)

    let result = try await CLIProcess.run([
      "campaign", "status", "site", "--journal", url.replacingOccurrences(of: "user=beacon", with: "user=monitor"),
      "--journal-password-file", folder + "/password",
    ])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("run site (apply, "), "\(result.output)")
    #expect(result.output.contains("1 verified"), "\(result.output)")
    await server.stop()
  }
}
