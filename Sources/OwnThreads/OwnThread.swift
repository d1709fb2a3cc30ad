import Foundation

/// Runs blocking work — `poll`, `send` on a full socket, `waitpid`, `flock`, a libpq round trip, SQLite's busy
/// wait — on a thread of its own, never on a thread Swift concurrency may need (the design rule "Blocking C calls
/// never run on the cooperative pool").
///
/// Why not a `DispatchQueue`: on Linux, Swift's global executor runs its jobs on libdispatch's global root
/// queue, the very workers `DispatchQueue.global()` and every concurrent queue run on. Beyond one worker per
/// core, libdispatch adds a worker for blocked ones only about once a second, so each blocked worker there
/// delays every task in the process by up to a second more: sixteen blocked workers held a `Task` back for
/// 9 s (measured with swiftc 6 on this machine, 2 cores), and a test's 30 s `poll` on `DispatchQueue.global()`
/// kept the write it waited for from ever starting under ThreadSanitizer. (A private serial queue targets
/// the overcommit root queue, which starts a thread whenever one is needed: 48 of them blocked at once got
/// 48 threads at once. `SerialThread` is used for those anyway, so that where blocking work runs does not
/// depend on which queue attributes libdispatch overcommits.) A `Thread` is a plain pthread outside that
/// accounting.
public enum OwnThread {
  /// Runs `body` on a new thread named `name` and returns its result.
  public static func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      start(name) { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Runs `body`, which cannot fail, on a new thread named `name` and returns its result.
  public static func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      start(name) { continuation.resume(returning: body()) }
    }
  }

  /// Starts `body` on a new thread named `name` and returns at once.
  public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
      nameThisThread(name)
      body()
    }
    thread.name = name
    thread.start()
  }

  /// Gives the calling thread `name` (its first 15 bytes) where the kernel keeps it, so `top -H`, gdb and
  /// /proc show it: on Linux, Foundation's `Thread.name` does not, and a new thread inherits its creator's
  /// name — a dispatch worker's "com.apple.root.default-qos" for most — which hid what each thread was.
  static func nameThisThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
  }
}
