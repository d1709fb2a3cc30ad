import CampaignPipeline
import Fleet
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `runs` lists the journal's runs newest first with how far their devices got (after a kill -9
/// the run id was once nowhere but the journal).
@Suite(.isolatedState, .timeLimit(.minutes(1))) struct RunsCommandTests {
  @Test func runsAreListedNewestFirstWithTheirDevicesCounted() async throws {
    let state = NSTemporaryDirectory() + "runs-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: state) }
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    let journal = try Journal(path: CampaignResources.journalPath(state))
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    _ = try await journal.createRun(
      NewJournalRun(
        kind: "apply", source: "site.json", adapter: "sim",
        addresses: ["AA:00:00:00:00:01", "AA:00:00:00:00:02", "AA:00:00:00:00:03"],
        now: start, id: "older"))
    try await journal.record(run: "older", address: "AA:00:00:00:00:01", state: .verified)
    try await journal.record(run: "older", address: "AA:00:00:00:00:02", state: .failed, detail: "wrong password")
    _ = try await journal.createRun(
      NewJournalRun(
        kind: "dfu", source: "app.zip", adapter: "sim", addresses: ["AA:00:00:00:00:04"],
        now: start.addingTimeInterval(60), id: "newer"))
    let command = try RunsCommand.parse(["--state-dir", state])
    let rows = try await command.load()
    #expect(rows.map(\.id) == ["newer", "older"])
    #expect(rows.map { [$0.finished, $0.pending, $0.failed] } == [[0, 1, 0], [1, 1, 1]])
    #expect(RunsCommand.line(rows[1]).hasSuffix("1 done, 1 pending, 1 failed  site.json"))
    #expect(try await RunsCommand.parse(["--state-dir", state, "--limit", "1"]).load().map(\.id) == ["newer"])
    #expect(throws: (any Error).self) { try RunsCommand.parse(["--limit", "0"]) }
  }
}
