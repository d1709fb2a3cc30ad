import Foundation

/// Runs blocking work — `poll`, `send` on a full socket, `waitpid`, `flock`, a libpq round trip, SQLite's busy
/// wait — on a thread of its own, never on a thread Swift concurrency may need (design.md, "Blocking C calls
/// never run on the cooperative pool").
///
/// Why not a `DispatchQueue`: on Linux, Swift's global executor runs its jobs on libdispatch's global root
/// queues, the very threads `DispatchQueue.global()` and every queue targeting it (a private serial queue
/// included) run on. Beyond one worker per core, libdispatch adds a worker for blocked ones only about once
/// a second, so each blocked dispatch worker delays every task in the process by up to a second more:
/// sixteen blocked workers held a `Task` back for 9 s (measured with swiftc 6 on this machine, 2 cores), and
/// a test's 30 s `poll` on `DispatchQueue.global()` kept the write it waited for from ever starting under
/// ThreadSanitizer. A `Thread` is a plain pthread outside that accounting.
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
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
  }
}
