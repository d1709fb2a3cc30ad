import Foundation
import TestServers
import Testing

/// Several processes opening one fresh state directory at once (three gateways started together on one
/// host): each migrates the new journal file, and none may fail on the others' work
/// (`table "registryDevice" already exists`, `duplicate column name: addressType` before the fix).
@Suite(.timeLimit(.minutes(5))) struct JournalMigrationRaceTests {
  static let processes = 5
  static let rounds = 12

  @Test func processesOpeningOneFreshStateDirectoryAtOnceAllMigrateIt() async throws {
    let folder = try LocalTools.temporaryDirectory("migration-race")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for round in 0..<Self.rounds {
      let state = folder + "/state-\(round)"
      // `campaign status` of a run that does not exist: it opens (and so migrates) the journal, then says so.
      let results = try await withThrowingTaskGroup(of: (Int32, String, String).self) { group in
        for _ in 0..<Self.processes {
          group.addTask { try await CLIProcess.run(["campaign", "status", "no-such-run", "--state-dir", state]) }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      for (status, _, errors) in results {
        #expect(status == 1 && errors.contains("no run no-such-run"), "round \(round): exit \(status): \(errors)")
      }
    }
  }
}
