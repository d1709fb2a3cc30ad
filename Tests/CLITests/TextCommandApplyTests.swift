import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `plan`/`apply` of a `commands` profile end to end on the built-in fleet's Nordic-UART AT
/// device, through the same CLI path as a KBeacon profile; what reached the device is read from the
/// simulated device itself (every command line it received, and its settings).
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct TextCommandApplyTests {
  static let uart = "6E:40:00:00:00:01"
  static let example = ExampleProfilesTests.folder + "/at-uart-devices.json"

  /// Runs `plan` (dry run) or `apply`; on `central` when given, else on `--adapter sim` (a fresh simulated
  /// fleet over the saved state, as a new process would have).
  static func run(
    _ profile: String, dryRun: Bool, central: (any Central)? = nil, extra: [String] = []
  ) async throws -> CampaignResult {
    let options = try ProvisionOptions.parse(
      [profile, "--adapter", "sim", "--scan", "3", "--retry-delay", "0"] + extra)
    var runner = ApplyInvocation(options: options, dryRun: dryRun, resume: nil, pace: .unpaced)
    runner.central = central
    return try await runner.run()
  }

  @Test func planQueriesApplySetsWhatDiffersAndASecondApplySendsNoSet() async throws {
    let (central, simulation) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    let device = try #require(simulation.textDevices.device(BluetoothAddress(Self.uart)!))

    let plan = try await Self.run(Self.example, dryRun: true, central: central)
    guard case .planned(let changes)? = plan.summary.outcomes[Self.uart] else {
      Issue.record("expected a plan, got \(plan.summary.outcomes)")
      return
    }
    #expect(
      changes.map(\.description) == [
        #"command 0 AT+NAME?: answered "+NAME:AT_Sensor_01 | OK" -> send "AT+NAME=dock-01""#,
        #"command 1 AT+INTERVAL?: answered "+INTERVAL:1000 | OK" -> send "AT+INTERVAL=500""#,
        #"command 2 AT+TXPOWER?: answered "+TXPOWER:0 | OK" -> send "AT+TXPOWER=-4""#,
      ])
    let journal = try Journal(path: CampaignResources.journalPath(StateDirectory.resolve(nil)))
    let queries = ["AT+NAME?", "AT+INTERVAL?", "AT+TXPOWER?"]
    try await Self.expectOnly(queries, in: await device.received, run: plan.summary.run, journal: journal)

    let apply = try await Self.run(Self.example, dryRun: false, central: central)
    guard case .updated(let applied)? = apply.summary.outcomes[Self.uart] else {
      Issue.record("expected updated, got \(apply.summary.outcomes)")
      return
    }
    #expect(applied == changes)
    let settings = try #require(await device.settings)
    #expect(settings.name == "dock-01" && settings.intervalMs == 500 && settings.txPower == -4 && settings.writes == 3)
    #expect(
      await device.received.filter { $0.contains("=") } == ["AT+NAME=dock-01", "AT+INTERVAL=500", "AT+TXPOWER=-4"])
    let row = try #require(try await journal.device(run: apply.summary.run, address: Self.uart))
    #expect(
      row.state == .verified && row.writes == 3
        && row.changeList.map(\.key) == ["AT+NAME?", "AT+INTERVAL?", "AT+TXPOWER?"])

    let before = await device.received.count
    let again = try await Self.run(Self.example, dryRun: false, central: central)
    #expect(again.summary.outcomes[Self.uart] == .compliant && !again.summary.changedSomething)
    let second = Array(await device.received.dropFirst(before))
    try await Self.expectOnly(queries, in: second, run: again.summary.run, journal: journal)
    #expect(try await journal.device(run: again.summary.run, address: Self.uart)?.writes == 0)
  }

  /// A run that needed one attempt sent exactly `queries`, in order; one that retried the device (a query
  /// whose answer came too late for its timeout, as on a machine starved under a sanitizer) sent them again
  /// from the start, so only they and all of them, and never a `set`.
  static func expectOnly(_ queries: [String], in received: [String], run: String, journal: Journal) async throws {
    let attempts = try #require(try await journal.device(run: run, address: uart)).attempts
    if attempts <= 1 {
      #expect(received == queries, "one attempt sent \(received)")
    } else {
      #expect(
        Set(received) == Set(queries) && received.starts(with: queries.prefix(1)),
        "\(attempts) attempts sent \(received)")
    }
  }

  /// Across runs (each its own simulated fleet over the saved state, as separate processes): the settings
  /// apply left are what the next run finds, so it writes nothing; `--json` lists each change.
  @Test func theAppliedSettingsAreKeptForTheNextRun() async throws {
    let json = try CampaignReport.json(try await Self.run(Self.example, dryRun: true, extra: ["--json"]))
    #expect(json.contains(#""key": "AT+NAME?""#) && json.contains(#""scope": "command 0""#))
    _ = try await Self.run(Self.example, dryRun: false)
    let store = SimulatorStateStore(stateDirectory: StateDirectory.resolve(nil), fleetFile: nil)
    let saved = try #require(try store.loadTextDevices()[BluetoothAddress(Self.uart)!])
    #expect(saved.name == "dock-01" && saved.intervalMs == 500 && saved.txPower == -4 && saved.writes == 3)
    // Each set is in the shared write log too, keyed by the setting it names; the second apply sends none.
    let logged = try store.writeLog.writes().filter { $0.what == "at" }
    #expect(
      logged.map(\.keys) == [["name"], ["interval"], ["txPower"]] && logged.allSatisfy { $0.address == Self.uart })
    let again = try await Self.run(Self.example, dryRun: false)
    #expect(again.summary.outcomes[Self.uart] == .compliant)
    #expect(try store.loadTextDevices()[BluetoothAddress(Self.uart)!]?.writes == 3)
    #expect(try store.writeLog.counts(what: "at") == [Self.uart: 3])
  }

  /// A bare `commands` profile selects only devices that advertise a text-stream service — never a KBeacon —
  /// and a device that does not speak the commands fails with what it answered, not silently.
  @Test func aBareProfileSelectsTextStreamDevicesOnly() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("bare-\(UUID().uuidString).json").path
    try #"{"version": 1, "commands": [{"query": "AT+NAME?", "expect": "/\\+NAME:.+/", "set": "AT+NAME=x"}]}"#
      .write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try await Self.run(path, dryRun: false)
    #expect(Set(result.summary.outcomes.keys) == [Self.uart, "C7:08:00:00:00:01"])
    #expect(result.summary.outcomes[Self.uart] == .compliant)
    guard case .failed(let reason, .permanent)? = result.summary.outcomes["C7:08:00:00:00:01"] else {
      Issue.record("the reader: \(String(describing: result.summary.outcomes["C7:08:00:00:00:01"]))")
      return
    }
    #expect(reason.contains(#"answered "ERR unknown command""#))
    #expect(
      result.notSelected.contains {
        $0.address == "DD:34:02:06:D1:01" && $0.reason.hasPrefix("advertises no text-stream service")
      })
  }
}
