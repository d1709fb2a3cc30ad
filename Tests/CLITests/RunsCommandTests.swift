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
    // A finished plan run: one device compliant, two with changes planned — planned, not pending.
    _ = try await journal.createRun(
      NewJournalRun(
        kind: "plan", source: "site.json", adapter: "sim",
        addresses: ["AA:00:00:00:00:05", "AA:00:00:00:00:06", "AA:00:00:00:00:07"],
        now: start.addingTimeInterval(120), id: "planned"))
    try await journal.record(run: "planned", address: "AA:00:00:00:00:05", state: .compliant)
    for address in ["AA:00:00:00:00:06", "AA:00:00:00:00:07"] {
      try await journal.record(run: "planned", address: address, state: .planned)
    }
    try await journal.finish(run: "planned", status: "finished")
    let command = try RunsCommand.parse(["--state-dir", state])
    let rows = try await command.load()
    #expect(rows.map(\.id) == ["planned", "newer", "older"])
    #expect(
      rows.map { [$0.finished, $0.planned, $0.pending, $0.failed] } == [[1, 2, 0, 0], [0, 0, 1, 0], [1, 0, 1, 1]])
    #expect(RunsCommand.line(rows[2]).hasSuffix("1 done, 1 pending, 1 failed  site.json"))
    #expect(RunsCommand.line(rows[0]).hasSuffix("finished  1 done, 2 planned, 0 pending, 0 failed  site.json"))
    #expect(try await RunsCommand.parse(["--state-dir", state, "--limit", "1"]).load().map(\.id) == ["planned"])
    #expect(throws: (any Error).self) { try RunsCommand.parse(["--limit", "0"]) }
    // `campaign status last` is the newest run of any kind, as `runs` lists it first.
    let last = try await CampaignStatusCommand.parse(["last", "--state-dir", state]).load().0
    #expect(last.run == "planned")
    // A plan ends where changes are found: its planned devices are finished (exit 0, not 2).
    #expect(last.complete)
    #expect(try await !CampaignStatusCommand.parse(["older", "--state-dir", state]).load().0.complete)
    #expect(try await CampaignStatusCommand.parse(["older", "--state-dir", state]).load().0.run == "older")
  }

  @Test func campaignStatusLastOnAJournalWithoutRunsSaysSo() async throws {
    let state = NSTemporaryDirectory() + "runs-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: state) }
    await #expect {
      _ = try await CampaignStatusCommand.parse(["last", "--state-dir", state]).load()
    } throws: {
      "\($0)".hasPrefix("no runs in ") && "\($0)".hasSuffix("journal.sqlite")
    }
  }
}
