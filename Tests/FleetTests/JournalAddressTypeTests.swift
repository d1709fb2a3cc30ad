import BeaconCore
import Foundation
import GRDB
import Testing

@testable import Fleet

/// The journal keeps each device's address type as the run's scan heard it (migration v2), so a resumed
/// run connects a device it does not hear again with the right type (Core v5.4 Vol 6 Part B §1.3: a link
/// goes to an address and its type); journals made before v2 open unchanged, their rows typeless.
@Suite("Journal address types", .timeLimit(.minutes(1))) struct JournalAddressTypeTests {
  @Test func aRunRecordsTheTypesItHeardAndNullForTheRest() async throws {
    let journal = try Journal(path: nil)
    let run = try await journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "sim",
      addresses: ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02", "DD:34:02:06:D1:03"],
      addressTypes: ["DD:34:02:06:D1:01": .public, "DD:34:02:06:D1:02": .random])
    let types = try await journal.devices(run: run).map(\.addressType)
    #expect(types == [.public, .random, nil])
    let text = try await journal.database.read { db in
      try String?.fetchAll(db, sql: "SELECT addressType FROM device WHERE runId = ? ORDER BY address", arguments: [run])
    }
    #expect(text == ["public", "random", nil])
  }

  @Test func aJournalMadeBeforeTheColumnOpensAndResumesTypeless() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-v1-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/journal.sqlite"
    do {  // a journal as the v1 schema wrote it, with one pending device
      let old = try DatabaseQueue(path: path)
      try Journal.migrator.migrate(old, upTo: "v1")
      try await old.write { db in
        try db.execute(
          sql:
            "INSERT INTO run (id, kind, source, adapter, startedAt, status) VALUES ('r1', 'dfu', 'a.zip', 'sim', ?, 'running')",
          arguments: [Date()])
        try db.execute(
          sql: "INSERT INTO device (runId, address, state, updatedAt) VALUES ('r1', 'DD:34:02:06:D1:01', 'pending', ?)",
          arguments: [Date()])
      }
    }
    let journal = try Journal(path: path)
    let device = try #require(try await journal.devices(run: "r1").first)
    #expect(device.addressType == nil && device.state == .pending)
    let run = try await journal.createRun(
      kind: "dfu", source: "b.zip", adapter: "sim", addresses: ["DD:34:02:06:D1:01"],
      addressTypes: ["DD:34:02:06:D1:01": .public])
    #expect(try await journal.devices(run: run).first?.addressType == .public)
  }
}
