import BeaconCore
import Foundation
import GRDB

/// The campaign journal: one SQLite database (through GRDB) under the state directory, recording every
/// run, every device's planned changes, the values they replace, its state and its error. It is what
/// makes `apply --resume RUN` possible after a crash or Ctrl-C, and it never holds a password. The same file
/// holds the fleet registry (`FleetRegistry`, migration "v3") and the monitor's webhook spool (`WebhookSpool`, "v4");
/// "v5" records what each run was made from (`RunRecipe`).
///
/// GRDB runs SQLite on its own serial queue; the async `read`/`write` used here never block the
/// cooperative pool.
public final class Journal: CampaignJournal {
  let database: DatabaseQueue
  /// Where the journal lives, for error messages.
  public let location: String
  /// WAL where the filesystem supports it, else SQLite's rollback journal (`JournalStorageMode`).
  public let storageMode: JournalStorageMode
  /// Whether it is a file (`location` its path), not kept in memory.
  let onDisk: Bool

  /// Opens (creating if needed) the journal at `path`; `nil` keeps it in memory (tests, `plan`).
  ///
  /// On disk it runs in WAL mode with `synchronous = NORMAL`: a commit appends to the write-ahead log
  /// without an fsync (checkpoints sync), so journalling each step no longer costs a disk flush that every
  /// link waits behind — with `DELETE` mode and `FULL`, 5 links spent a third of their time on it
  /// (`provision-bench apply-scaling`). A committed step survives a crash or `kill -9` of the process; a
  /// power cut may lose the last steps, which `--resume` covers, since it reads every unfinished device
  /// back before writing [I]. Where the filesystem cannot hold a WAL (network filesystems, 9p), it keeps
  /// the rollback journal with `synchronous = FULL` instead (`JournalStorageMode`).
  public init(path: String?) throws {
    location = path ?? "(in memory)"
    onDisk = path != nil
    if let path {
      let folder = (path as NSString).deletingLastPathComponent
      try JournalOpenError.makeFolder(folder, path: path)
      Self.createPrivately(path)
      var configuration = Configuration()
      storageMode = JournalStorageMode.probe(folder: folder)
      storageMode.configure(&configuration)
      // Another handle on the same file (a second command, `history`, a test reading along) may hold the
      // lock for a moment, e.g. while it switches the file to WAL: wait for it rather than fail.
      configuration.busyMode = .timeout(10)
      // A damaged file is refused before any handle that could write to it (WAL mode creates and drops a
      // table) opens it.
      try JournalIntegrity.checkBeforeOpening(path: path)
      database = try Self.openOnDisk(path: path, configuration: configuration)
    } else {
      storageMode = .rollback
      database = try DatabaseQueue()
      try Self.migrate(database)
    }
  }

  /// Creates an empty journal file (an empty file is an empty SQLite database) readable by its owner only, when
  /// there is none: it holds the webhook spool, whose URLs may carry a receiver's token in their query, and
  /// SQLite would create it readable by everyone (0644 under the usual umask). SQLite gives the write-ahead log
  /// and its index the database file's mode. A file that exists keeps the mode it has [I: an operator may
  /// have opened it to a group on purpose].
  static func createPrivately(_ path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if descriptor >= 0 { close(descriptor) }
  }

  /// How long opening a file another process is opening at the same moment keeps retrying.
  static let busyOpeningBudget: TimeInterval = 15

  /// Opens, checks and migrates the file at `path`. Switching a fresh file to WAL takes an exclusive lock,
  /// and SQLite answers `SQLITE_BUSY` at once, without its busy handler, when it would otherwise deadlock
  /// with another connection doing the same (five processes opening one fresh state directory: "database is
  /// locked - while executing `PRAGMA journal_mode = WAL`"). So a busy open is tried again after a short,
  /// growing pause, for up to `busyOpeningBudget` seconds [I].
  static func openOnDisk(path: String, configuration: Configuration) throws -> DatabaseQueue {
    let deadline = Date().addingTimeInterval(busyOpeningBudget)
    var pauseMicroseconds: UInt32 = 5_000
    while true {
      do {
        let database: DatabaseQueue
        do {
          database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
          throw JournalOpenError.translate(error, path: path)
        }
        do {
          try JournalIntegrity.check(database, path: path)
          try Self.migrate(database)
        } catch let error as JournalDamagedError {
          throw error
        } catch {
          throw JournalOpenError.translate(error, path: path)
        }
        return database
      } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
        guard Date() < deadline else { throw error }
        usleep(pauseMicroseconds + UInt32.random(in: 0..<pauseMicroseconds))
        pauseMicroseconds = min(pauseMicroseconds * 2, 200_000)
      }
    }
  }

  static var migrator: DatabaseMigrator {
    var m = DatabaseMigrator()
    m.registerMigration("v1") { db in
      try db.create(table: "run") { t in
        t.primaryKey("id", .text)
        t.column("kind", .text).notNull()
        t.column("source", .text).notNull()
        t.column("adapter", .text).notNull()
        t.column("startedAt", .datetime).notNull()
        t.column("finishedAt", .datetime)
        t.column("status", .text).notNull()
      }
      try db.create(table: "device") { t in
        t.column("runId", .text).notNull().references("run", onDelete: .cascade)
        t.column("address", .text).notNull()
        t.column("state", .text).notNull()
        t.column("step", .text)
        t.column("attempts", .integer).notNull().defaults(to: 0)
        t.column("writes", .integer).notNull().defaults(to: 0)
        t.column("changes", .text)
        t.column("detail", .text)
        t.column("failureKind", .text)
        t.column("updatedAt", .datetime).notNull()
        t.primaryKey(["runId", "address"])
      }
    }
    // v2: each device's address type as the run's scan heard it, so a resume can connect a device it does
    // not hear again (one waiting in its DFU bootloader) with the right type; NULL in runs made before.
    m.registerMigration("v2") { db in
      try db.alter(table: "device") { t in t.add(column: "addressType", .text) }
    }
    // v3: the fleet registry (`FleetRegistry`) — every device heard or touched, and its RSSI/battery history.
    m.registerMigration("v3", migrate: FleetRegistry.createTables)
    // v4: the presence monitor's webhook spool (`WebhookSpool`) — deliveries waiting for a 2xx.
    m.registerMigration("v4", migrate: WebhookSpool.createTables)
    // v5: what each run was made from (`RunRecipe`); NULL in runs made before, which are accepted as they are.
    m.registerMigration("v5") { db in
      try db.alter(table: "run") { t in t.add(column: "recipe", .text) }
    }
    // v6: the beacon identities each registry device showed (`RegistryDevice.identities`, a JSON array); NULL
    // for devices recorded before, and for devices that showed none.
    m.registerMigration("v6") { db in
      try db.alter(table: "registryDevice") { t in t.add(column: "identities", .text) }
    }
    return m
  }

  /// Starts a run with every target pending; returns its id (`YYYYMMDD-HHMMSS-xxxx`).
  public func createRun(_ new: NewJournalRun) async throws -> String {
    let id = new.id ?? Self.runID(new.now)
    if new.id != nil, let existing = try await run(id) {
      try RunRecipe.check(run: id, location: location, recorded: existing.recipe, given: new.recipe)
    }
    try await write { db in
      try db.execute(
        sql:
          "INSERT INTO run (id, kind, source, adapter, startedAt, status, recipe) VALUES (?, ?, ?, ?, ?, 'running', ?)",
        arguments: [id, new.kind, new.source, new.adapter, new.now, new.recipe])
      for address in new.addresses {
        try db.execute(
          sql: "INSERT INTO device (runId, address, state, addressType, updatedAt) VALUES (?, ?, 'pending', ?, ?)",
          arguments: [id, address, new.addressTypes[address]?.description, new.now])
      }
    }
    return id
  }

  public static func runID(_ date: Date) -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "yyyyMMdd-HHmmss"
    return f.string(from: date) + "-" + String(UInt16.random(in: 0...0xFFFF), radix: 16)
  }

  /// Records a device's new state (and optionally its step, changes, detail, failure kind).
  public func record(_ u: JournalUpdate) async throws {
    let changesJSON = try u.changesJSON
    try await write { db in
      try db.execute(
        sql: """
          UPDATE device SET state = ?, step = COALESCE(?, step), changes = COALESCE(?, changes), detail = ?, failureKind = ?,
            attempts = attempts + ?, writes = writes + ?, updatedAt = ? WHERE runId = ? AND address = ?
          """,
        arguments: [
          u.state.rawValue, u.step, changesJSON, u.detail, u.failureKind?.rawValue, u.countAttempt ? 1 : 0,
          u.countWrite ? 1 : 0, Date(), u.run, u.address,
        ])
    }
  }

  public func finish(run: String, status: String) async throws {
    try await write { db in
      try db.execute(sql: "UPDATE run SET status = ?, finishedAt = ? WHERE id = ?", arguments: [status, Date(), run])
    }
  }

  /// Every write goes through here, so a failure reaches the campaign as a `JournalWriteError` (which stops
  /// it: a step that is not journalled would break `--resume`).
  func write(_ updates: @escaping @Sendable (Database) throws -> Void) async throws {
    do {
      try await database.write(updates)
    } catch {
      // A full disk or the file size limit in words an operator can act on (the file and the limit).
      let reason = onDisk ? JournalOpenError.writeReason(error, path: location) : String(describing: error)
      throw JournalWriteError(location: location, reason: reason)
    }
  }

  public func run(_ id: String) async throws -> JournalRun? {
    try await database.read { db in try JournalRun.fetchOne(db, sql: "SELECT * FROM run WHERE id = ?", arguments: [id])
    }
  }

  public func runs() async throws -> [JournalRun] {
    try await database.read { db in try JournalRun.fetchAll(db, sql: "SELECT * FROM run ORDER BY startedAt DESC") }
  }

  public func device(run: String, address: String) async throws -> JournalDevice? {
    try await database.read { db in
      try JournalDevice.fetchOne(
        db, sql: "SELECT * FROM device WHERE runId = ? AND address = ?", arguments: [run, address])
    }
  }

  public func devices(run: String) async throws -> [JournalDevice] {
    try await database.read { db in
      try JournalDevice.fetchAll(db, sql: "SELECT * FROM device WHERE runId = ? ORDER BY address", arguments: [run])
    }
  }
}

/// The journal could not record a step. A campaign stops on it (links in flight end their device, the rest
/// stay pending): without the journal, `--resume` could write a device twice or skip one.
public struct JournalWriteError: Error, Sendable, Hashable, CustomStringConvertible {
  public var location: String
  public var reason: String
  public var description: String { "cannot write the journal \(location): \(reason)" }

  public init(location: String, reason: String) {
    self.location = location
    self.reason = reason
  }
}

/// Where a device stands in a run.
public enum DeviceState: String, Sendable, Codable, CaseIterable {
  /// Not visited yet (or interrupted before it finished).
  case pending
  /// A link is working on it.
  case working
  /// Read back, nothing to change.
  case compliant
  /// `plan` only: changes found, nothing written.
  case planned
  /// Written and verified by read-back.
  case verified
  /// Not for this profile (model, firmware, or device limits).
  case skipped
  case failed

  /// Finished for good: a resumed run leaves these alone.
  public var isFinal: Bool { self == .compliant || self == .verified || self == .skipped }
}

/// A planned or applied change as the journal keeps it: values as text, passwords masked.
public struct JournalChange: Sendable, Codable, Hashable {
  public var scope: String
  public var key: String
  public var old: String?
  public var new: String

  public init(scope: String, key: String, old: String?, new: String) {
    self.scope = scope
    self.key = key
    self.old = old
    self.new = new
  }
}

extension JSONEncoder {
  /// Foundation's coder, kept for one column only: `ConfigurationFingerprint`'s canonical JSON, whose SHA-256
  /// the fleet registry stores. Foundation escapes `/` as `\/` and the JSON module's writer does not, so
  /// writing the canonical form with the module would change the hash of every configuration holding a URL
  /// (an Eddystone-URL slot) and make each such device look changed to the next audit [I].
  static var sorted: JSONEncoder {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    return e
  }
}
