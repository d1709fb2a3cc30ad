import CLibPQ
import Foundation
import Synchronization
import TestServers
import Testing

@testable import Fleet
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

  /// A server host that does not answer (a failover, a cut network) is given 10 s a connect and a reconnect,
  /// not the system's TCP timeout of about two minutes, which would overrun the 60 s reconnect bound; a
  /// `connect_timeout` in the journal's URL wins.
  @Test func eachConnectWaitsAtMostTheConnectTimeoutUnlessTheURLSaysOtherwise() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let plain = try await connect(server, database: url)
      #expect(try await plain.session { Self.option("connect_timeout", of: $0) } == "10")
      let given = try await connect(server, database: url + "&connect_timeout=3")
      #expect(try await given.session { Self.option("connect_timeout", of: $0) } == "3")
      await plain.close()
      await given.close()
    }
  }

  /// A record run again on a new connection after its COMMIT's reply was lost — the same call, so the same
  /// id — counts its attempt and its write once; the next call counts again.
  @Test func aRecordRunAgainAfterALostReplyCountsItsAttemptAndWriteOnce() async throws {
    try await withPostgres { server in
      let journal = try await PostgresJournal(connection: try await connect(server), gateway: "gw-1")
      let address = "C4:00:00:00:00:02"
      let run = try await journal.createRun(kind: "apply", source: "p.json", adapter: "hci0", addresses: [address])
      let update = JournalUpdate(
        run: run, address: address, state: .working, step: "written", changes: nil, detail: nil, failureKind: nil,
        countAttempt: true, countWrite: true)
      func counts() async throws -> [Int?] {
        let row = try await journal.device(run: run, address: address)
        return [row?.attempts, row?.writes]
      }
      try await journal.record(update, id: "first")
      try await journal.record(update, id: "first")
      #expect(try await counts() == [1, 1])
      try await journal.record(update, id: "second")
      #expect(try await counts() == [2, 2])
      try await journal.record(update)
      try await journal.record(update)
      #expect(try await counts() == [4, 4])
    }
  }

  /// A connection option as libpq holds it (`PQconninfo`).
  static func option(_ keyword: String, of session: PostgresSession) -> String? {
    guard let options = PQconninfo(session.pointer) else { return nil }
    defer { PQconninfoFree(options) }
    var index = 0
    while let key = options[index].keyword {
      if String(cString: key) == keyword { return options[index].val.map { String(cString: $0) } }
      index += 1
    }
    return nil
  }

  /// A gateway frozen inside a transaction (SIGSTOP, a suspended VM) does not hold the rows it locked
  /// against the others: the server ends its session once it has idled in the transaction for the bound,
  /// the other's update of the row goes through while it is still frozen, and the frozen one, resumed, runs
  /// its transaction again from the start on a new connection. Without the bound the other's update waits
  /// for the frozen one's commit, after its 8 s.
  @Test func aTransactionLeftIdleReleasesItsRowsAndRunsAgain() async throws {
    try await withPostgres { server in
      let url = try PostgresURL(try await server.createDatabase(), origin: "test")
      let frozen = try await PostgresConnection.connect(url, idleInTransactionSeconds: 1)
      let other = try await PostgresConnection.connect(url)
      try await other.session {
        try $0.script("CREATE TABLE lease (id int PRIMARY KEY, holder text); INSERT INTO lease VALUES (1, 'nobody')")
      }
      let state = Mutex((runs: 0, locked: false, thawed: false))
      let frozenWork = Task {
        try await frozen.session { session in
          let run = state.withLock { s in
            s.runs += 1
            return s.runs
          }
          try session.transaction {
            _ = try session.query("UPDATE lease SET holder = 'frozen' WHERE id = 1")
            guard run == 1 else { return }
            state.withLock { $0.locked = true }
            Thread.sleep(forTimeInterval: 8)  // idle in the transaction, as a stopped process is
            state.withLock { $0.thawed = true }
          }
        }
      }
      while !state.withLock({ $0.locked }) { try await Task.sleep(for: .milliseconds(20)) }
      try await other.session { _ = try $0.query("UPDATE lease SET holder = 'other' WHERE id = 1") }
      #expect(!state.withLock { $0.thawed }, "the other's update waited for the frozen transaction to end")
      try await frozenWork.value
      #expect(state.withLock { $0.runs } == 2)
      let holder = try await other.session { try $0.query("SELECT holder FROM lease WHERE id = 1").rows[0][0] }
      #expect(holder == "frozen")
      let bound = try await frozen.session { try $0.query("SHOW idle_in_transaction_session_timeout").rows[0][0] }
      #expect(bound == "1s", "the bound is set again on the new connection")
      await frozen.close()
      await other.close()
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
