import Foundation
import GRDB
import OwnThreads
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
    let run = try await journal.createRun(
      kind: "apply", source: "p.json", adapter: "sim", addresses: ["DD:34:02:06:D1:01"])
    try await journal.record(run: run, address: "DD:34:02:06:D1:01", state: .verified)
    let other = try Journal(path: folder + "/journal.sqlite")
    #expect(try await other.device(run: run, address: "DD:34:02:06:D1:01")?.state == .verified)
  }

  /// A new journal file, and the write-ahead log and index SQLite makes beside it, are readable by their owner
  /// only (the webhook spool in it may hold a receiver's token), whatever the umask lets SQLite create; a file
  /// that exists keeps its mode.
  @Test func aNewJournalIsReadableByItsOwnerOnly() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let journal = try Journal(path: folder + "/journal.sqlite")
    _ = try await journal.createRun(kind: "apply", source: "p.json", adapter: "sim", addresses: ["DD:34:02:06:D1:01"])
    func mode(_ name: String) throws -> Int {
      try #require(FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.posixPermissions] as? Int)
    }
    for name in ["journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm"] {
      #expect(try mode(name) == 0o600, "\(name)")
    }
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: folder + "/journal.sqlite")
    _ = try Journal(path: folder + "/journal.sqlite")
    #expect(try mode("journal.sqlite") == 0o640)
  }

  /// Where the filesystem cannot map WAL's shared memory (9p in the VM tier, network filesystems), the
  /// journal keeps SQLite's rollback journal and syncs every commit (sqlite.org/pragma.html#pragma_synchronous:
  /// FULL = 2). The VM tier's provision and dfu scenarios run it on 9p for real.
  @Test func theRollbackModeSyncsEveryCommitAndTheProbeLeavesNothingBehind() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    #expect(JournalStorageMode.probe(folder: folder) == .writeAheadLog)  // a local temporary folder maps it
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    var configuration = Configuration()
    JournalStorageMode.rollback.configure(&configuration)
    let queue = try DatabaseQueue(path: folder + "/rollback.sqlite", configuration: configuration)
    let (mode, sync) = try queue.read { db in
      (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
    }
    #expect(mode == "delete")
    #expect(sync == 2)  // FULL
    // A folder the probe cannot write in at all is no WAL either.
    #expect(JournalStorageMode.probe(folder: folder + "/missing") == .rollback)
  }

  @Test func handlesOpenedTogetherWaitForEachOtherInsteadOfFailing() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/journal.sqlite"
    let writer = try Journal(path: path)
    let run = try await writer.createRun(
      kind: "apply", source: "w.json", adapter: "sim", addresses: ["DD:34:02:06:D1:FF"])
    try await withThrowingTaskGroup(of: Void.self) { group in
      // One handle keeps writing (a run in progress) while the others open the file.
      group.addTask {
        for _ in 0..<300 {
          try await writer.record(run: run, address: "DD:34:02:06:D1:FF", state: .working, step: "reading")
        }
      }
      for i in 0..<8 {
        group.addTask {
          let journal = try await Self.open(path)
          _ = try await journal.createRun(
            kind: "apply", source: "p\(i).json", adapter: "sim", addresses: ["DD:34:02:06:D1:0\(i)"])
        }
      }
      try await group.waitForAll()
    }
    #expect(try await Journal(path: path).runs().count == 9)
  }

  /// Opens a journal on a thread of its own, as the CLI does (`BlockingIO`): opening waits on SQLite's busy
  /// timeout (up to 10 s) while another handle holds the lock, and eight such waits on the cooperative pool
  /// held its threads — every other test in the process stalled (seen under ThreadSanitizer: tests waiting on
  /// timers ran out of time).
  static func open(_ path: String) async throws -> Journal {
    try await OwnThread.run("test-journal-open") { try Journal(path: path) }
  }
}
