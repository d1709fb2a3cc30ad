import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `reconcile` on a site several gateways share through a real PostgreSQL journal: real
/// `beacon-provision reconcile` processes, each nearest its share of the simulated KBeacons (the others hear
/// each device 20 dB weaker), under a fault — one gateway killed with SIGKILL mid-campaign, one stopped past
/// its lease, or the server restarted mid-campaign. Each fault comes at a set device, where the gateway stops
/// itself (`SimulatorPauseHook`), not on a log line, which under load arrives after the moment has passed. Every device ends configured, written exactly once as the simulated devices' shared write log
/// counts it (every `cfg` a device accepted, whichever process served it), and the survivors then leave the
/// converged site alone.
///
/// The gateways share one state directory, as the simulated fleet's state must be shared; each keeps its own
/// schedule in memory (the `reconcile.json` they take turns writing is read only at a start).
@Suite(.serialized, .timeLimit(.minutes(6))) struct ReconcileSeveralGatewaysTests {
  @Test func threeGatewaysConvergeASiteEachDeviceWrittenOnceThroughAKill() async throws {
    let gateways = ["gw-1", "gw-2", "gw-3"]
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try Self.site(count: 18, block: 0x21, gateways: gateways)
    // gw-1 stops itself just before writing device 9 (one of its six), so at least that device is left
    // unfinished when it dies, whatever the load: killed on a log line instead, it once finished them all
    // before the line reached the test.
    let target = site.address(9)
    let processes = try await Self.start(
      site, gateways, journal: url, environment: ["gw-1": "before-write:\(target)"])
    let (victim, survivors) = (processes[0], processes.dropFirst())
    let stopped = await victim.line { $0.contains("test hook: stopped before writing \(target)") }
    victim.signal(SIGKILL)
    let (victimStatus, victimText) = await victim.finish()
    try #require(stopped, "gw-1 ended before it reached \(target): \(victimText)")
    #expect(victimStatus == SIGKILL)

    let journal = try await Self.journal(url)
    let converged = try await Self.converge(site, journal, survivors)
    let written = try site.writeLog.counts().count
    #expect(converged, "the site did not converge: \(written) of \(site.count) written")
    #expect(try site.notWrittenOnce() == [:], "devices not written exactly once (address: writes)")

    // The journal agrees: every device settled; the devices gw-1 did not finish, by a survivor; the others by
    // the gateway nearest them. (A device gw-1 wrote before it died is found compliant by the gateway that
    // took it over, and not written again: the write log above.)
    let finishedBy = try await Self.finishedBy(journal)
    #expect(finishedBy.count == site.count, "\(finishedBy)")
    let gw1Devices = (0..<site.count).filter { $0 % 3 == 0 }.map(site.address)
    let takenOver = gw1Devices.filter { finishedBy[$0] != "gw-1" }
    #expect(!takenOver.isEmpty, "gw-1 finished all its devices before it was killed: \(finishedBy)")
    #expect(takenOver.allSatisfy { ["gw-2", "gw-3"].contains(finishedBy[$0]) }, "\(finishedBy)")
    let history = try await journal.connection.session { s in
      try s.query(
        "SELECT address, state, gateway, writes, detail FROM bp_device WHERE run_id LIKE 'reconcile-%' ORDER BY address"
      ).rows.map { $0.map { $0 ?? "-" }.joined(separator: " ") }.joined(separator: "\n")
        + "\nsightings:\n"
        + (try s.query("SELECT gateway, address, rssi FROM bp_sighting ORDER BY address, gateway").rows.map {
          $0.map { $0 ?? "-" }.joined(separator: " ")
        }.joined(separator: "\n"))
    }
    let tails = survivors.map(\.tail.text).joined(separator: "\n----\n")
    for i in 0..<site.count where i % 3 != 0 {
      #expect(finishedBy[site.address(i)] == gateways[i % 3], "\(site.address(i)):\n\(history)\n\(tails)")
    }
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// `pg_ctl restart` while two gateways reconcile: each reconnects and goes on (a pass the restart cut short
  /// is reported and the next pass takes its devices up again), and no device is written twice.
  @Test func twoGatewaysGoOnThroughAPostgreSQLRestart() async throws {
    let gateways = ["gw-1", "gw-2"]
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try Self.site(count: 16, block: 0x22, gateways: gateways)
    // gw-1 stops itself before writing device 4 (one of its eight), so the restart comes mid-campaign; it
    // goes on (SIGCONT) once the server is back.
    let target = site.address(4)
    let processes = try await Self.start(
      site, gateways, journal: url, environment: ["gw-1": "before-write:\(target)"])
    let stopped = await processes[0].line { $0.contains("test hook: stopped before writing \(target)") }
    try #require(stopped, "gw-1 ended before it reached \(target):\n\(processes[0].tail.text)")
    try await server.restart()
    processes[0].signal(SIGCONT)
    let journal = try await Self.journal(url)
    let converged = try await Self.converge(site, journal, processes[...])
    let written = try site.writeLog.counts().count
    #expect(converged, "the site did not converge: \(written) of \(site.count) written")
    #expect(try site.notWrittenOnce() == [:], "devices not written exactly once (address: writes)")
    #expect(try await Self.finishedBy(journal).count == site.count)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// A gateway stopped (SIGSTOP) in the middle of a device — after reading it, just before the fenced
  /// pre-write record (`SimulatorPauseHook`, as in `SeveralGatewaysFaultsTests`) — for longer than its lease:
  /// the other gateway takes the device over and writes it; resumed, the stopped one finds its lease gone
  /// and writes nothing. Every device once, the device in question by the other gateway's process.
  @Test func aGatewayPausedPastItsLeaseDoesNotWriteItsLostDeviceAgain() async throws {
    let gateways = ["gw-1", "gw-2"]
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    // gw-1 hears every device clearly better: it claims them all, one at a time (--parallel 1).
    let site = try GatewaySite(count: 8, block: 0x23, gateways: gateways) { gateway, _ in
      gateway == "gw-1" ? -55 : -70
    }
    let target = site.address(2)
    let processes = try await Self.start(
      site, gateways, journal: url, parallel: 1, lease: 2, environment: ["gw-1": "before-write:\(target)"])
    let (paused, other) = (processes[0], processes[1])
    let stopped = await paused.line { $0.contains("test hook: stopped before writing \(target)") }
    if !stopped { Issue.record("gw-1 ended before it stopped at \(target): \(await paused.finish().text)") }
    try #require(stopped)
    #expect(await paused.isStopped(), "gw-1 said it stopped but is not")
    let journal = try await Self.journal(url)
    var taken = false
    for _ in 0..<120 where !taken {
      try await Task.sleep(for: .milliseconds(500))
      taken = try await Self.rows(journal).contains { $0.address == target && $0.state == .verified }
    }
    #expect(taken, "gw-2 did not verify \(target): \(other.tail.text)")
    paused.signal(SIGCONT)
    let converged = try await Self.converge(site, journal, [paused, other][...])
    #expect(converged, "the site did not converge")
    #expect(try site.notWrittenOnce() == [:], "devices not written exactly once (address: writes)")
    let writes = try site.writeLog.writes().filter { $0.address == target && $0.what == "cfg" }
    #expect(writes.map(\.pid) == [other.process.processIdentifier], "\(writes)")
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// `count` devices; device i is nearest gateway i % gateways.count (-55 dBm), the others hear it at -75.
  static func site(count: Int, block: Int, gateways: [String]) throws -> GatewaySite {
    try GatewaySite(count: count, block: block, gateways: gateways) { gateway, i in
      gateway == gateways[i % gateways.count] ? -55 : -75
    }
  }

  /// One reconcile process per gateway on `journal`, started together (`--gateways`: each waits for all);
  /// `environment` sets a gateway's `SimulatorPauseHook` (where it stops itself); `extra` options follow.
  static func start(
    _ site: GatewaySite, _ gateways: [String], journal: String, parallel: Int = 2, lease: Int = 3,
    environment: [String: String] = [:], extra: [String] = []
  ) async throws -> [GatewayProcess] {
    try await site.prepareState()
    return try gateways.map { gateway in
      try GatewayProcess(
        [
          "reconcile", site.profile, "--adapter", "sim:\(site.fleet)", "--window", "1", "--parallel", "\(parallel)",
          "--recheck", "30d", "--state-dir", site.state, "--journal", journal, "--gateway", gateway, "--gateways",
          "\(gateways.count)", "--settle", "60", "--lease", "\(lease)",
        ] + extra,
        environment: environment[gateway].map { [SimulatorPauseHook.environmentVariable: $0] } ?? [:])
    }
  }

  static func journal(_ url: String) async throws -> PostgresJournal {
    try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "test")
  }

  /// Waits (up to 2 min) until every device accepted a write and no device is open in any reconcile run, then
  /// three more windows, and stops `gateways` with SIGTERM, expecting each to exit 0. Returns whether it
  /// converged.
  static func converge(_ site: GatewaySite, _ journal: PostgresJournal, _ gateways: ArraySlice<GatewayProcess>)
    async throws -> Bool
  {
    var converged = false
    for _ in 0..<240 where !converged {
      try await Task.sleep(for: .milliseconds(500))
      let written = try site.writeLog.counts().count
      let open = try await rows(journal).filter { !$0.state.isFinal }
      converged = written == site.count && open.isEmpty
    }
    try await Task.sleep(for: .seconds(3))
    for gateway in gateways { gateway.signal(SIGTERM) }
    for gateway in gateways {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
    return converged
  }

  /// Every device row of the site's reconcile runs (one run per profile and --recheck period).
  static func rows(_ journal: PostgresJournal) async throws -> [JournalDevice] {
    var rows: [JournalDevice] = []
    for run in try await journal.runs() where run.id.hasPrefix("reconcile-") {
      rows += try await journal.devices(run: run.id)
    }
    return rows
  }

  /// The gateway that last recorded each settled device of the reconcile runs.
  static func finishedBy(_ journal: PostgresJournal) async throws -> [String: String] {
    let pairs = try await journal.connection.session { s in
      try s.query(
        """
        SELECT address, gateway FROM bp_device WHERE run_id LIKE 'reconcile-%'
          AND state IN ('compliant', 'verified') ORDER BY updated_at
        """
      ).rows.compactMap { row -> (String, String)? in
        guard let address = row[0], let gateway = row[1] else { return nil }
        return (address, gateway)
      }
    }
    return Dictionary(pairs, uniquingKeysWith: { _, last in last })
  }
}
