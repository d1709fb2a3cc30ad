import Foundation
import OwnThreads

/// Runs blocking work (file writes and reads of the benchmark's 50 MiB file, waiting for a process, socket
/// probes) on a thread of its own and awaits it, so it never holds a thread of Swift's cooperative pool.
enum OffPool {
  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await OwnThread.run("provision-bench.blocking", body)
  }
}
