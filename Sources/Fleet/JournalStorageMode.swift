import Foundation
import GRDB

/// How the journal's SQLite file makes each commit durable on the filesystem it lives on.
///
/// WAL with `synchronous = NORMAL` is the fast path (see `Journal.init(path:)`), but SQLite's WAL needs
/// shared memory mapped from the `-shm` file beside the database, which some filesystems cannot give:
/// network filesystems (SQLite's documentation: WAL "does not work over a network filesystem") and 9p as a
/// QEMU guest mounts it, where every write then fails with SQLITE_IOERR ("disk I/O error") — found by the
/// VM tier, whose state directory is such a mount. So the folder is probed once with a scratch database:
/// where a WAL transaction commits, the journal uses WAL; elsewhere it keeps SQLite's rollback journal with
/// `synchronous = FULL`, slower but just as durable [I: a probe rather than a list of filesystem magic
/// numbers, so a filesystem nobody listed is judged by what it does].
public enum JournalStorageMode: String, Sendable, Equatable {
  case writeAheadLog = "wal"
  case rollback = "delete"

  /// Tries a WAL transaction in a scratch database in `folder` (removed afterwards).
  public static func probe(folder: String) -> JournalStorageMode {
    let path = folder + "/.journal-probe-" + UUID().uuidString + ".sqlite"
    defer {
      for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    do {
      var configuration = Configuration()
      writeAheadLog.configure(&configuration)
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      try queue.write { db in try db.execute(sql: "CREATE TABLE probe (x INTEGER); INSERT INTO probe VALUES (1)") }
      try queue.close()
      return .writeAheadLog
    } catch {
      return .rollback
    }
  }

  /// Sets the journal mode and the sync level this mode stands for.
  func configure(_ configuration: inout Configuration) {
    switch self {
    case .writeAheadLog:
      configuration.journalMode = .wal
      configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    case .rollback:
      configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }
  }
}
