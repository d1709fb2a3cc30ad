import GRDB

extension Journal {
  /// Brings the journal's file to the current schema (`migrator`), safely when several processes open one
  /// fresh file at once — three gateways started together on one state directory (issue #23, part 4).
  ///
  /// GRDB's migrator reads which migrations are applied before it starts, then runs each missing one in its
  /// own `BEGIN IMMEDIATE` transaction. Two processes may both read "v1 missing": the second waits on the
  /// first's transaction (the busy timeout), then runs v1 again and fails (`table "run" already exists`,
  /// `duplicate column name: addressType`). Nothing half-done is left — each migration is one transaction —
  /// so when a run of the migrator fails while the set of applied migrations grew meanwhile, another process
  /// did the work: read again and go on from there. An error with no such progress is a real one and is
  /// thrown [I: optimistic retry rather than a lock file, so it works wherever SQLite's own locking does (9p,
  /// network filesystems) and leaves nothing beside the journal; it ends, since each retry needs a migration
  /// more applied than before and there are finitely many].
  static func migrate(_ database: DatabaseQueue, with migrator: DatabaseMigrator = migrator) throws {
    var applied = try database.read { try migrator.appliedIdentifiers($0) }
    while true {
      do {
        try migrator.migrate(database)
        return
      } catch {
        let now = try database.read { try migrator.appliedIdentifiers($0) }
        guard now.isStrictSuperset(of: applied) else { throw error }
        applied = now
      }
    }
  }
}
