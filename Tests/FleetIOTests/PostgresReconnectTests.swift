import Fleet
import Foundation
import TestServers
import Testing

@testable import FleetIO

/// A server restart under a connection (a PostgreSQL restart of 0.6 s once stopped every gateway).
@Suite(.timeLimit(.minutes(3))) struct PostgresReconnectTests {
  @Test func aConnectionGoesOnThroughAServerRestartAndItsJournalWithIt() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      let run = try await journal.createRun(
        kind: "apply", source: "p.json", adapter: "hci0", addresses: ["C4:00:00:00:00:01"], id: "site")
      let before = try await journal.connection.session { try $0.query("SELECT pg_backend_pid()").rows[0][0] }
      try await server.restart()
      // The old backend is gone ("server closed the connection unexpectedly" before): the next statement
      // runs on a new one, and the journal's state is as it was.
      try await journal.record(run: run, address: "C4:00:00:00:00:01", state: .verified, countWrite: true)
      let after = try await journal.connection.session { try $0.query("SELECT pg_backend_pid()").rows[0][0] }
      #expect(before != after)
      let row = try #require(try await journal.device(run: run, address: "C4:00:00:00:00:01"))
      #expect(row.state == .verified && row.writes == 1)
      // NOTICEs stay off on the new connection too.
      let level = try await journal.connection.session { try $0.query("SHOW client_min_messages").rows[0][0] }
      #expect(level == "warning")
      // A statement the server refuses is not retried: it fails at once, not after the 60 s reconnect bound
      // (30 s here bounds a loaded, instrumented machine, not a speed).
      let refused = Date()
      await #expect(throws: PostgresError.self) { try await journal.connection.session { try $0.query("SELEC 1") } }
      #expect(Date().timeIntervalSince(refused) < 30)
    }
  }

  @Test func aServerGoneForLongerThanTheBoundStopsTheCallSayingSo() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let connection = try await PostgresConnection.connect(try PostgresURL(url, origin: "test"), reconnectSeconds: 1)
    await server.stop()
    let started = Date()
    let error = await #expect(throws: PostgresError.self) {
      try await connection.session { try $0.query("SELECT 1") }
    }
    #expect(error?.message.contains("could not be reached for 1 s") == true, "\(String(describing: error))")
    #expect(Date().timeIntervalSince(started) < 30)  // the 1 s bound, not the default 60 s
    await connection.close()
  }
}
