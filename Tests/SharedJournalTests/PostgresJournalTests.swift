import BeaconCore
import Fleet
import Foundation
import Testing

@testable import SharedJournal

/// The journal's rows on PostgreSQL behave as the SQLite journal's do (the `CampaignJournal` seam), and a
/// run id shared by several gateways is joined, not reset (issue #18).
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
          NewJournalRun(kind: "apply", source: "p.json", adapter: "hci0", addresses: [Self.a, Self.b],
            addressTypes: [Self.a: .random], now: start, id: "20270115-080000-beef"))
        #expect(run == "20270115-080000-beef")
        try await journal.record(run: run, address: Self.a, state: .working, step: "connecting", countAttempt: true)
        try await journal.record(
          run: run, address: Self.a, state: .working, step: "writing",
          changes: [JournalChange(scope: "common", key: "pwd", old: "***", new: "***")])
        try await journal.record(run: run, address: Self.a, state: .verified, countWrite: true)
        try await journal.record(run: run, address: Self.b, state: .failed, detail: "link lost", failureKind: .transient)
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
      let run = try await one.createRun(kind: "dfu", source: "fw.zip", adapter: "hci0", addresses: [Self.a], now: Date(), id: "site-1")
      try await one.record(run: run, address: Self.a, state: .verified, countWrite: true)
      // gw-2 hears a and b.
      _ = try await two.createRun(kind: "dfu", source: "fw.zip", adapter: "hci1", addresses: [Self.a, Self.b], now: Date(), id: run)
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
      let good = try await PostgresConnection.connect(try PostgresURL(asGateway, origin: "--journal"), password: "right-one")
      #expect(try await good.session { try $0.query("SELECT current_user").rows } == [["gateway"]])
      #expect(!good.location.contains("right-one"))
    }
  }
}
