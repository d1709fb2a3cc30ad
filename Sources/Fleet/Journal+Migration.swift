import GRDB

extension Journal {
  /// Brings the journal's file to the current schema (`migrator`), safely when several processes open one
  /// fresh file at once — three gateways started together on one state directory.
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
    // A baseline that cannot be read is empty: at worst one more run of the migrator, which fails the same way.
    var applied = (try? appliedMigrations(database, migrator)) ?? []
    while true {
      do {
        try migrator.migrate(database)
        return
      } catch {
        guard let now = try? appliedMigrations(database, migrator), now.isStrictSuperset(of: applied) else {
          throw error
        }
        applied = now
      }
    }
  }

  /// The migrations applied, read in one transaction that first looks for GRDB's table: GRDB's own
  /// `appliedIdentifiers` selects first and, when the table is missing, checks for it afterwards — by then
  /// another process may have created it, and the missing table became an error ("no such table:
  /// grdb_migrations", seen with five processes at once).
  static func appliedMigrations(_ database: DatabaseQueue, _ migrator: DatabaseMigrator) throws -> Set<String> {
    try database.read { db in try db.tableExists("grdb_migrations") ? migrator.appliedIdentifiers(db) : [] }
  }
}
