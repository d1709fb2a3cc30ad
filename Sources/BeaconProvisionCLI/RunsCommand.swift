import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation

/// `beacon-provision runs`: the recent runs of this machine's journal, newest first, with their state and how
/// far their devices got — the id `--resume` needs after a `kill -9` or a second Ctrl-C, when no summary was
/// printed (`--resume last` takes the newest of a kind).
struct RunsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "runs", abstract: "List the recent runs of the journal (apply, plan, dfu…), newest first.",
    discussion: """
      Each run: its id, kind, when it started, its status (finished, interrupted, or running — a run killed \
      before it could say so stays running), how many devices are finished, pending or failed — for a plan run, \
      how many have changes planned — and what it was made from. Resume one with `apply PROFILE --resume ID` or \
      `dfu update … --resume ID` (or `--resume last`).

      Exit status: 0 listed (also when there is no run); 1 the journal cannot be read; \(ExitStatus.usage).

      Examples:
        beacon-provision runs
        beacon-provision runs --limit 3 --json | jq -r '.[0].id'
      """)

  @Option(help: "How many runs, newest first (1…1000).") var limit: Int = 20
  @Option(help: "Where the journal lives. Default: $XDG_STATE_HOME/beacon-provision.") var stateDir: String?
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    guard (1...1000).contains(limit) else { throw ValidationError("--limit must be 1…1000") }
  }

  /// One run as listed.
  struct Row: Encodable, Equatable {
    var id: String
    var kind: String
    var startedAt: Date
    var status: String
    var finished: Int
    var pending: Int
    var failed: Int
    /// `plan` runs: devices with changes found (nothing written; not pending).
    var planned: Int
    var source: String
  }

  func run() async throws {
    let rows = try await load()
    if json {
      print(try JSONOutput.string(rows))
    } else if rows.isEmpty {
      print("no runs in \(StateDirectory.resolve(stateDir))")
    } else {
      for row in rows { print(Self.line(row)) }
    }
  }

  func load() async throws -> [Row] {
    let path = CampaignResources.journalPath(StateDirectory.resolve(stateDir))
    let journal = try await BlockingIO.run { try Journal(path: path) }
    var rows: [Row] = []
    for run in try await journal.runs().prefix(limit) {
      let devices = try await journal.devices(run: run.id)
      rows.append(
        Row(
          id: run.id, kind: run.kind, startedAt: run.startedAt, status: run.status,
          finished: devices.filter(\.state.isFinal).count,
          pending: devices.filter { !$0.state.isFinal && $0.state != .failed && $0.state != .planned }.count,
          failed: devices.filter { $0.state == .failed }.count,
          planned: devices.filter { $0.state == .planned }.count,
          source: run.source))
    }
    return rows
  }

  /// `20261127-153012-ab12  apply  2026-11-27T15:30:12Z  interrupted  12 done, 3 pending, 1 failed  site.json`
  /// (a plan run with changes found: `…  finished  2 done, 5 planned, 0 pending, 0 failed  site.json`).
  static func line(_ row: Row) -> String {
    "\(row.id)  \(row.kind)  \(row.startedAt.formatted(.iso8601))  \(row.status)  \(row.finished) done, "
      + (row.planned > 0 ? "\(row.planned) planned, " : "")
      + "\(row.pending) pending, \(row.failed) failed  \(row.source.terminalSafe)"
  }
}
