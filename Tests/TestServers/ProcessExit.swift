import Foundation

/// A child process's end, awaited without blocking: `terminationHandler` (set before `run()`, so an early
/// exit is not missed) finishes a stream the caller awaits — never `waitUntilExit()`, which would hold a
/// thread of the cooperative pool.
public struct ProcessExit: Sendable {
  private let ended: AsyncStream<Void>

  /// Starts `process`; `wait()` then returns once it has terminated.
  public static func run(_ process: Process) throws -> ProcessExit {
    let (ended, sink) = AsyncStream.makeStream(of: Void.self)
    process.terminationHandler = { _ in sink.finish() }
    try process.run()
    return ProcessExit(ended: ended)
  }

  /// Returns when the process has terminated (its `terminationStatus` is then valid).
  public func wait() async {
    for await _ in ended {}
  }
}
