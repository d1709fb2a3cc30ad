import Foundation
import GRDB
import Testing

@testable import Fleet

/// The on-disk journal commits a step without a disk flush per transaction (WAL, synchronous NORMAL:
/// sqlite.org/wal.html, "synchronous=NORMAL … WAL mode is safe from corruption … and is durable across
/// application crashes"), so links do not queue behind fsyncs; a crash of the process loses nothing committed.
@Suite("Journal on disk", .timeLimit(.minutes(1))) struct JournalDurabilityTests {
  @Test func theJournalRunsInWALModeWithNormalSync() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let journal = try Journal(path: folder + "/journal.sqlite")
    let (mode, sync) = try await journal.database.read { db in
      (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
    }
    #expect(mode == "wal")
    #expect(sync == 1)  // NORMAL
    // A second handle (another process after a crash) sees a committed step.
    let run = try await journal.createRun(kind: "apply", source: "p.json", adapter: "sim", addresses: ["DD:34:02:06:D1:01"])
    try await journal.record(run: run, address: "DD:34:02:06:D1:01", state: .verified)
    let other = try Journal(path: folder + "/journal.sqlite")
    #expect(try await other.device(run: run, address: "DD:34:02:06:D1:01")?.state == .verified)
  }

  @Test func handlesOpenedTogetherWaitForEachOtherInsteadOfFailing() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/journal.sqlite"
    let writer = try Journal(path: path)
    let run = try await writer.createRun(kind: "apply", source: "w.json", adapter: "sim", addresses: ["DD:34:02:06:D1:FF"])
    try await withThrowingTaskGroup(of: Void.self) { group in
      // One handle keeps writing (a run in progress) while the others open the file.
      group.addTask {
        for _ in 0..<300 { try await writer.record(run: run, address: "DD:34:02:06:D1:FF", state: .working, step: "reading") }
      }
      for i in 0..<8 {
        group.addTask {
          let journal = try Journal(path: path)
          _ = try await journal.createRun(kind: "apply", source: "p\(i).json", adapter: "sim", addresses: ["DD:34:02:06:D1:0\(i)"])
        }
      }
      try await group.waitForAll()
    }
    #expect(try await Journal(path: path).runs().count == 9)
  }
}
