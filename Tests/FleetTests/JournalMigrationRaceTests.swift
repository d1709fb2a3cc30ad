import Foundation
import OwnThreads
import Testing

@testable import Fleet

/// Threads opening one fresh journal file at once, each through its own connection, as separate processes do
/// (three gateways started together on one host; the CLI test `JournalMigrationRaceTests` runs real processes): all of them migrate it.
@Suite(.timeLimit(.minutes(3))) struct JournalMigrationRaceTests {
  /// Each `Journal(path:)` blocks on SQLite, so each runs on a thread of its own, off the cooperative pool.
  @Test func connectionsOpeningOneFreshFileAtOnceAllSucceed() async throws {
    let folder = NSTemporaryDirectory() + "journal-race-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for round in 0..<20 {
      let path = folder + "/\(round)/journal.sqlite"
      let failures = try await withThrowingTaskGroup(of: String?.self) { group in
        for _ in 0..<6 {
          group.addTask {
            await withCheckedContinuation { continuation in
              OwnThread.start("journal-race") {
                do {
                  _ = try Journal(path: path)
                  continuation.resume(returning: nil)
                } catch {
                  continuation.resume(returning: "\(error)")
                }
              }
            }
          }
        }
        return try await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
      }
      #expect(failures.isEmpty, "round \(round): \(failures)")
    }
  }
}
