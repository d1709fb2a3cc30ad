/// Runs blocking work — file reads and writes, the ioctls that look an adapter up, SQLite's busy wait while
/// the journal opens, waiting for a child process, anything that may sleep in the kernel — on a thread of its
/// own (`OwnThread`) and awaits the result, so it never holds a thread of Swift's cooperative pool
/// (the design rule "Blocking C calls never run on the cooperative pool"). The one such wrapper of the package,
/// for the command line and provision-bench alike. Meant for short work; long-lived I/O has threads of its
/// own (the fd bearer's reader, the mgmt and HCI sockets).
public enum BlockingIO {
  /// The name of the threads it starts (at most 15 bytes: the kernel keeps no more).
  public static let threadName = "blocking-io"

  public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await OwnThread.run(threadName, body)
  }
}
