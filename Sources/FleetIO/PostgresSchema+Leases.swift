/// Migration 5 of the shared journal (fencing tokens, and leases held per process instance rather than per gateway name), on its own so
/// the migration list gains one line.
extension PostgresSchema {
  /// A lease belongs to a process instance, not to a gateway name: `instance` is the id a gateway process
  /// draws at start (`PostgresJournal.instance`), so two processes started under one name (the default is
  /// the host name) never take over each other's leases. `generation` is the lease's fencing token: a new
  /// value from `bp_lease_generation` each time a lease is taken, checked by every journal write of the
  /// holder (`LeaseFence`), so a gateway that lost a device while paused cannot record — or start — a
  /// write to it. Rows of older tools get instance '' and generation 0, which no running instance holds.
  static let instanceLeases = """
    ALTER TABLE bp_lease ADD COLUMN instance text NOT NULL DEFAULT '', ADD COLUMN generation bigint NOT NULL DEFAULT 0;
    CREATE SEQUENCE bp_lease_generation;
    """
}
