import OwnThreads

/// Runs blocking work — file reads, the ioctls that look an adapter up, SQLite's busy wait while the journal
/// opens, anything that may sleep in the kernel — on a thread of its own (`OwnThread`: on Linux a dispatch
/// queue would take a worker Swift's tasks also run on) and awaits the result, so it never holds a thread of
/// Swift's cooperative pool (the design rule "Blocking C calls never run on the cooperative pool"). Meant for short
/// start-up work (profiles, fleet files, the simulator's saved state, adapter lookup); long-lived I/O has
/// its own threads (the fd bearer's reader, the mgmt and HCI sockets).
enum BlockingIO {
  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await OwnThread.run("beacon-provision.blocking-io", body)
  }
}
