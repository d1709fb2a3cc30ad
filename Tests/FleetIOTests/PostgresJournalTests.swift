import BeaconCore
import Fleet
import Foundation
import Testing

@testable import FleetIO

/// The journal's rows on PostgreSQL behave as the SQLite journal's do (the `CampaignJournal` seam), and a
/// run id shared by several gateways is joined, not reset.
@Suite(.timeLimit(.minutes(5))) struct PostgresJournalTests {
  static let a = "C2:00:00:00:00:01", b = "C2:00:00:00:00:02"

  @Test func recordsRunsAndDevicesAsTheSQLiteJournalDoes() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let pg = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      let sqlite = try Journal(path: nil)
      let start = Date(timeIntervalSince1970: 1_800_000_000)
      for journal in [pg, sqlite] as [any CampaignJournal] {
        let run = try await journal.createRun(
          NewJournalRun(
            kind: "apply", source: "p.json", adapter: "hci0", addresses: [Self.a, Self.b],
            addressTypes: [Self.a: .random], now: start, id: "20270115-080000-beef"))
        #expect(run == "20270115-080000-beef")
        try await journal.record(run: run, address: Self.a, state: .working, step: "connecting", countAttempt: true)
        try await journal.record(
          run: run, address: Self.a, state: .working, step: "writing",
          changes: [JournalChange(scope: "common", key: "pwd", old: "***", new: "***")])
        try await journal.record(run: run, address: Self.a, state: .verified, countWrite: true)
        try await journal.record(
          run: run, address: Self.b, state: .failed, detail: "link lost", failureKind: .transient)
        try await journal.finish(run: run, status: "finished")
      }
      for journal in [pg, sqlite] as [any CampaignJournal] {
        let run = try #require(try await journal.run("20270115-080000-beef"))
        #expect(run.kind == "apply" && run.source == "p.json" && run.status == "finished" && run.finishedAt != nil)
        #expect(run.startedAt == start)
        let rows = try await journal.devices(run: run.id)
        #expect(rows.map(\.address) == [Self.a, Self.b])
        #expect(rows.map(\.state) == [.verified, .failed])
        #expect(rows[0].attempts == 1 && rows[0].writes == 1 && rows[0].step == "writing")
        #expect(rows[0].changeList == [JournalChange(scope: "common", key: "pwd", old: "***", new: "***")])
        #expect(rows[0].addressType == .random && rows[1].addressType == nil)
        #expect(rows[1].detail == "link lost" && rows[1].failureKind == .transient)
        #expect(try await journal.device(run: run.id, address: Self.b) == rows[1])
        #expect(try await journal.runs().map(\.id) == [run.id])
      }
    }
  }

  @Test func aSecondGatewayJoinsTheRunWithoutResettingTheFirstOnesDevices() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let one = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      let two = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-2")
      let run = try await one.createRun(
        kind: "dfu", source: "fw.zip", adapter: "hci0", addresses: [Self.a], now: Date(), id: "site-1")
      try await one.record(run: run, address: Self.a, state: .verified, countWrite: true)
      // gw-2 hears a and b.
      _ = try await two.createRun(
        kind: "dfu", source: "fw.zip", adapter: "hci1", addresses: [Self.a, Self.b], now: Date(), id: run)
      let rows = try await two.devices(run: run)
      #expect(rows.map(\.state) == [.verified, .pending])
      #expect(rows[0].writes == 1)
      #expect(try await two.run(run)?.adapter == "hci0")
      let gateways = try await two.connection.session {
        try $0.query("SELECT gateway FROM bp_device WHERE run_id = $1 ORDER BY address", [run]).rows.map { $0[0] }
      }
      #expect(gateways == ["gw-1", "gw-2"])
      // gw-1's part ends while b is still pending: the run stays running until no device is left open.
      try await one.finish(run: run, status: "finished")
      #expect(try await two.run(run)?.status == "running")
      try await two.record(run: run, address: Self.b, state: .failed, detail: "timeout", failureKind: .transient)
      try await two.finish(run: run, status: "finished")
      #expect(try await one.run(run)?.status == "finished")
    }
  }

  @Test func aServerThatIsGoneIsAJournalWriteErrorWithoutThePassword() async throws {
    try await withPostgres { server in
      let connection = try await connect(server)
      let journal = try await PostgresJournal(connection: connection, gateway: "gw-1")
      let run = try await journal.createRun(kind: "apply", source: "p.json", adapter: "hci0", addresses: [Self.a])
      await server.stop()
      let error = await #expect(throws: JournalWriteError.self) {
        try await journal.record(run: run, address: Self.a, state: .working, step: "connecting")
      }
      #expect(error?.location == connection.location)
      #expect(error?.location.contains("postgresql://") == true)
    }
  }

  /// `POSTGRESQL://…` reaches the server the URL names: libpq matches the scheme case-sensitively and, given it
  /// as written, looked for a database of that name on the default local socket.
  @Test func anUpperCaseSchemeConnectsToTheServerItNames() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let upper = "POSTGRESQL" + url.dropFirst("postgresql".count)
      let journal = try await PostgresJournal(connection: try await connect(server, database: upper), gateway: "gw-1")
      #expect(try await journal.connection.session { try $0.query("SELECT current_user").rows } == [["beacon"]])
      await journal.connection.close()
    }
  }

  @Test func aWrongPasswordIsRefusedAndNeverShown() async throws {
    try await withPostgres { server in
      // Roles other than the test server's superuser must give a password (`PostgresServer`).
      let url = try await server.createDatabase()
      let admin = try await connect(server, database: url)
      try await admin.session { s in try s.script("CREATE ROLE gateway LOGIN PASSWORD 'right-one'") }
      let asGateway = url.replacingOccurrences(of: "user=beacon", with: "user=gateway")
      let error = await #expect(throws: PostgresError.self) {
        _ = try await PostgresConnection.connect(try PostgresURL(asGateway, origin: "--journal"), password: "wrong-one")
      }
      #expect(error?.description.contains("password authentication failed") == true)
      #expect(error?.description.contains("wrong-one") == false)
      let good = try await PostgresConnection.connect(
        try PostgresURL(asGateway, origin: "--journal"), password: "right-one")
      #expect(try await good.session { try $0.query("SELECT current_user").rows } == [["gateway"]])
      #expect(!good.location.contains("right-one"))
    }
  }

  /// A run id joined with another recipe (another profile) is refused and adds nothing; the same recipe joins;
  /// a run made before schema version 4 (no recipe) is joined as before.
  @Test func joiningARunMadeFromAnotherRecipeIsRefusedAndOldRunsAreAccepted() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let old = try await connect(server, database: url)
      try await old.session { try PostgresSchema.migrate($0, known: Array(PostgresSchema.migrations.prefix(3))) }
      try await old.session { s in
        try s.query(
          "INSERT INTO bp_run (id, kind, source, adapter, started_at, status) VALUES ('old', 'apply', 'p.json', 'hci0', now(), 'running')"
        )
      }
      let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      let (a, b) = (RunRecipe("profile", content: [1]).text, RunRecipe("profile", content: [2]).text)
      #expect(try await journal.run("old")?.recipe == nil)
      _ = try await journal.createRun(
        kind: "apply", source: "p.json", adapter: "hci0", addresses: [Self.a], id: "old", recipe: a)
      #expect(try await journal.devices(run: "old").map(\.address) == [Self.a])

      _ = try await journal.createRun(
        kind: "apply", source: "p.json", adapter: "hci0", addresses: [Self.a], id: "site1", recipe: a)
      let error = await #expect(throws: RunRecipeMismatch.self) {
        _ = try await journal.createRun(
          kind: "apply", source: "q.json", adapter: "hci0", addresses: [Self.b], id: "site1", recipe: b)
      }
      #expect(error?.recorded == a && error?.given == b)
      #expect(try await journal.devices(run: "site1").map(\.address) == [Self.a])
      _ = try await journal.createRun(
        kind: "apply", source: "p.json", adapter: "hci0", addresses: [Self.b], id: "site1", recipe: a)
      #expect(try await journal.devices(run: "site1").map(\.address) == [Self.a, Self.b])
      #expect(try await journal.run("site1")?.recipe == a)
      await old.close()
      await journal.connection.close()
    }
  }

  /// Gateways joining one new run id at once with two different profiles: whichever recipe created the run,
  /// every gateway with the other is refused and none of its devices is added.
  @Test func gatewaysJoiningAtOnceWithTwoRecipesAddOnlyTheFirstRecipesDevices() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let recipes = [RunRecipe("profile", content: [1]).text, RunRecipe("profile", content: [2]).text]
      var journals: [PostgresJournal] = []
      for i in 0..<6 {
        journals.append(
          try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-\(i)"))
      }
      let joined = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
        for (i, journal) in journals.enumerated() {
          group.addTask {
            do {
              _ = try await journal.createRun(
                kind: "apply", source: "p.json", adapter: "hci0", addresses: [String(format: "C2:00:00:00:00:%02X", i)],
                id: "site",
                recipe: recipes[i % 2])
              return (i, true)
            } catch is RunRecipeMismatch {
              return (i, false)
            }
          }
        }
        return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
      }
      let winner = try #require(try await journals[0].run("site")?.recipe)
      let expected = Set((0..<6).filter { recipes[$0 % 2] == winner })
      #expect(Set(joined.filter(\.value).keys) == expected)
      #expect(
        Set(try await journals[0].devices(run: "site").map(\.address))
          == Set(expected.map { String(format: "C2:00:00:00:00:%02X", $0) }))
      for journal in journals { await journal.connection.close() }
    }
  }
}
