import Foundation

/// Runs blocking work (poll, accept, connect) on a fresh `Thread`, never on Swift's cooperative pool
/// (design.md, Concurrency), and bridges the result back with a continuation.
enum DedicatedThread {
  /// Runs `body` on a new thread named `name` and returns its result.
  static func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread {
        continuation.resume(with: Result { try body() })
      }
      thread.name = name
      thread.start()
    }
  }

  /// Starts `body` on a new thread and returns at once.
  static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
  }
}
