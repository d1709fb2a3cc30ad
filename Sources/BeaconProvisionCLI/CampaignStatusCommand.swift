import ArgumentParser
import CampaignPipeline
import Fleet
import FleetIO
import Foundation

struct CampaignStatusCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Every gateway's progress and every device's state in a run.",
    discussion: """
      Reads the journal only. With --journal postgresql://… (or $BEACON_PROVISION_JOURNAL) it shows the run as \
      every gateway sharing it recorded it: each gateway's heartbeat, the devices it finished and holds, and \
      each device's state, the gateway that recorded it last (for a pending device, the one that hears it best) \
      and the one holding it now. Without, it reads \
      this machine's SQLite journal.

      Exit status: 0 every device finished (compliant, verified or skipped; in a plan run, planned too); 2 some \
      device is not finished (pending, working, failed); 1 no such run, or the journal cannot be read; \(ExitStatus.usage).

      Examples:
        beacon-provision campaign status site-0412 \\
            --journal postgresql://ops@db.site/beacons
        beacon-provision campaign status site-0412 --json \\
            | jq '.devices[] | select(.state != "verified")'
      """)

  @Argument(help: "The run id, or \"last\" for the newest run of any kind.") var run: String
  @OptionGroup var location: JournalLocationOptions
  @Option(help: "Seconds without a heartbeat after which a gateway counts as gone (the gateways' --lease).")
  var lease: Double = 30
  @Option(help: "Where the SQLite journal lives when no --journal is given. Default: $XDG_STATE_HOME/beacon-provision.")
  var stateDir: String?
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var logging: LoggingOptions

  func validate() throws { try SecondsOption.validate(lease, "--lease", atMost: 3600) }

  func run() async throws {
    let (status, source) = try await load()
    let rollout = Self.rollout(status, source: source)
    print(json ? try Self.json(status, rollout: rollout) : Self.table(status, rollout: rollout) + Self.waves(rollout))
    if !status.complete { throw ExitCode(2) }
  }

  /// The run's status, and its recorded source on this machine's journal (a rollout's waves: `waves`).
  func load() async throws -> (SiteStatus, source: String?) {
    if let shared = try await location.openShared(gateway: ProcessInfo.processInfo.hostName) {
      let run = try await Self.resolve(run, in: shared, place: shared.location)
      guard let status = try await shared.status(run: run, leaseSeconds: lease) else {
        throw CLIFailure("no run \(run) in \(shared.location)")
      }
      await shared.connection.close()
      return (status, nil)
    }
    let state = StateDirectory.resolve(stateDir)
    let journal = try await BlockingIO.run { try Journal(path: CampaignResources.journalPath(state)) }
    let run = try await Self.resolve(run, in: journal, place: journal.location)
    guard let head = try await journal.run(run) else { throw CLIFailure("no run \(run) in \(journal.location)") }
    let devices = try await journal.devices(run: run).map {
      SiteStatus.Device(
        address: $0.address, state: $0.state.rawValue, step: $0.step, attempts: $0.attempts, writes: $0.writes,
        gateway: nil, leasedBy: nil, detail: $0.detail)
    }
    return (SiteStatus(run: run, kind: head.kind, status: head.status, gateways: [], devices: devices), head.source)
  }

  /// `given`, or for `last` (`ResumeRun.latest`, as `runs` and `--resume` take it) the newest run of any kind.
  static func resolve(_ given: String, in journal: any CampaignJournal, place: String) async throws -> String {
    guard given == ResumeRun.latest else { return given }
    guard let newest = try await journal.runs().max(by: { $0.startedAt < $1.startedAt }) else {
      throw CLIFailure("no runs in \(place)")
    }
    return newest.id
  }

  /// A staged rollout's status (`dfu update --rollout`, recorded in the run's source): its waves and
  /// verdict (`RolloutStatus`); nil for any other run.
  static func rollout(_ s: SiteStatus, source: String?) -> RolloutStatus? {
    guard let plan = source.flatMap(RolloutPlan.init(recordedSource:)) else { return nil }
    return RolloutStatus(plan: plan, devices: s.devices.map { ($0.address, $0.state) }, runStatus: s.status)
  }

  /// The rollout's verdict and waves, after the device table; empty for any other run.
  static func waves(_ rollout: RolloutStatus?) -> String {
    guard let rollout else { return "" }
    return "\n\n" + rollout.lines.joined(separator: "\n")
  }

  /// The run as JSON: `SiteStatus`'s fields and, for a rollout, `rollout` (`RolloutStatus`: its verdict and
  /// waves).
  static func json(_ status: SiteStatus, rollout: RolloutStatus? = nil) throws -> String {
    try JSONOutput.string(StatusJSON(status: status, rollout: rollout))
  }

  /// `SiteStatus` with the rollout beside its fields (absent for any other run).
  struct StatusJSON: Encodable {
    var status: SiteStatus
    var rollout: RolloutStatus?
    enum Keys: String, CodingKey { case rollout }
    func encode(to encoder: any Encoder) throws {
      try status.encode(to: encoder)
      var container = encoder.container(keyedBy: Keys.self)
      try container.encodeIfPresent(rollout, forKey: .rollout)
    }
  }

  /// The device table; a rollout's header names its verdict instead of the run's recorded status, which
  /// reads "finished" between waves.
  static func table(_ s: SiteStatus, rollout: RolloutStatus? = nil) -> String {
    let counts = { (c: [String: Int]) in
      c.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }
    let state = rollout?.headline ?? s.status
    var lines = ["run \(s.run) (\(s.kind), \(state)): \(s.devices.count) devices — \(counts(s.totals))"]
    if !s.gateways.isEmpty {
      lines.append("")
      lines.append("GATEWAY".padding(toLength: 20, withPad: " ", startingAt: 0) + "HEARTBEAT     HOLDS  DEVICES")
      for g in s.gateways {
        let beat = (g.alive ? "" : "gone ") + String(format: "%.0f s ago", g.heartbeatAge)
        lines.append(
          g.name.padding(toLength: 20, withPad: " ", startingAt: 0)
            + beat.padding(toLength: 14, withPad: " ", startingAt: 0)
            + String(g.holding).padding(toLength: 7, withPad: " ", startingAt: 0) + counts(g.devices))
      }
    }
    lines.append("")
    lines.append("DEVICE             STATE      WRITES  GATEWAY             NOW")
    for d in s.devices {
      let now = d.leasedBy.map { "held by \($0)" } ?? d.step.map { d.state == "working" ? $0 : "" } ?? ""
      lines.append(
        d.address.padding(toLength: 19, withPad: " ", startingAt: 0)
          + d.state.padding(toLength: 11, withPad: " ", startingAt: 0)
          + String(d.writes).padding(toLength: 8, withPad: " ", startingAt: 0)
          + (d.gateway ?? "-").padding(toLength: 20, withPad: " ", startingAt: 0) + now
          + (d.state == "failed" ? (d.detail.map { " " + $0 } ?? "") : ""))
    }
    return lines.joined(separator: "\n")
  }
}
