import Foundation
import GRDB

/// The journal's integrity check on open (a corrupt page inside the journal once went unnoticed): SQLite's
/// `PRAGMA quick_check` (https://sqlite.org/pragma.html#pragma_quick_check — every page and record is
/// well formed, without the slower index-content check of `integrity_check`). Before it, 8 KiB of random
/// bytes at offset 32 KiB went unnoticed: `apply` exited 0 and only a registry warning said "database disk
/// image is malformed". A damaged journal is refused, naming the file, as a truncated one already was: a
/// campaign must not resume from, or record into, a journal that may have lost steps.
///
/// [I] The check runs on every open of a journal file; on a journal of a few MB it takes milliseconds.
enum JournalIntegrity {
  /// At most this many of quick_check's findings are quoted.
  static let quotedFindings = 3

  /// Checks an existing journal file before the journal opens it for writing: opening it in WAL mode writes
  /// to it (GRDB's WAL set-up creates and drops a table, so that the -wal file exists), which would land in a
  /// damaged file before `check` refused it — the fault matrix's corrupt-journal group saw its schema cookie
  /// move. So quick_check runs first on a read-only handle, and a damaged file is refused untouched. Only
  /// SQLite's "corrupt" (11) and "not a database" (26) count as damage here; any other failure of the
  /// read-only handle leaves the verdict to `check` after the ordinary open [I: a read-only handle can fail
  /// for reasons that say nothing about the file, e.g. a WAL it may not recover].
  static func checkBeforeOpening(path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { return }
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(10)
    let findings: [String]
    do {
      let probe = try DatabaseQueue(path: path, configuration: configuration)
      defer { try? probe.close() }
      findings = try probe.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(\(quotedFindings))") }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
      throw JournalDamagedError(location: path, findings: ["\(error)"], notADatabase: true)
    } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
      throw JournalDamagedError(location: path, findings: ["\(error)"])
    } catch {
      return
    }
    guard findings == ["ok"] else { throw JournalDamagedError(location: path, findings: findings) }
  }

  /// Throws `JournalDamagedError` unless quick_check says "ok".
  static func check(_ database: DatabaseQueue, path: String) throws {
    let findings: [String]
    do {
      findings = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(\(quotedFindings))") }
    } catch let error as DatabaseError where error.resultCode != .SQLITE_CORRUPT {
      // Not a damaged journal but no journal at all (26), or no room or right to read it: said as such.
      throw JournalOpenError.translate(error, path: path)
    } catch {
      throw JournalDamagedError(location: path, findings: ["\(error)"])
    }
    guard findings == ["ok"] else { throw JournalDamagedError(location: path, findings: findings) }
  }
}

/// The journal file failed its integrity check on open.
public struct JournalDamagedError: Error, Sendable, Hashable, CustomStringConvertible {
  public var location: String
  /// What SQLite found (at most `JournalIntegrity.quotedFindings`).
  public var findings: [String]
  /// SQLite does not read the file as a database at all (26, `SQLITE_NOTADB`): another file where the
  /// journal belongs, or a journal whose header is gone. Said as such, without SQLite's error number.
  public var notADatabase = false

  public init(location: String, findings: [String], notADatabase: Bool = false) {
    (self.location, self.findings, self.notADatabase) = (location, findings, notADatabase)
  }

  public var description: String {
    if notADatabase {
      return "\(location) is not a journal database (SQLite: file is not a database): another file is where the "
        + "journal belongs, or its header is damaged. Move it aside (a new journal starts, and the fleet registry "
        + "in it afresh), give --state-dir another folder, or put back a copy from a backup"
    }
    return
      "the journal \(location) is damaged (SQLite's quick_check: \(findings.joined(separator: "; "))): its runs cannot be "
      + "trusted or resumed. Move it aside to start a new journal (the fleet registry in it starts afresh too), "
      + "or put back a copy from a backup"
  }
}
