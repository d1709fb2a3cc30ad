import Fleet
import Foundation
import SharedJournal
import Testing
import TestServers

@testable import BeaconProvisionCLI

/// Faults of several gateways (a pause past the lease, one gateway name twice, a server restart), each with real `apply` processes on a real PostgreSQL server and
/// a shared simulated site, and each proved by the simulated devices' shared write log (`SimulatorWriteLog`:
/// every write any process's device accepted): every device written exactly once, and verified.
@Suite(.timeLimit(.minutes(4))) struct SeveralGatewaysFaultsTests {
  /// The run's rows; each device verified with one write journalled, and the run finished.
  static func expectAllVerified(_ url: String, count: Int) async throws {
    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "test")
    let rows = try await journal.devices(run: "site")
    #expect(rows.count == count)
    #expect(rows.allSatisfy { $0.state == .verified && $0.writes == 1 }, "\(rows.filter { $0.state != .verified || $0.writes != 1 })")
    // The run says so too (a gateway whose round lost a lease ended it "interrupted" for a moment).
    #expect(try await journal.run("site")?.status == "finished")
    await journal.connection.close()
  }

  /// Two processes under one gateway name — the default, the host name: two adapters on one host. Before
  /// leases belonged to a process instance, each retook the other's leases and most devices were written twice.
  @Test func twoProcessesWithTheDefaultGatewayNameWriteEachDeviceOnce() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 16, block: 1, heard: [ProcessInfo.processInfo.hostName: -60])
    try await site.prepareState()
    let gateways = try (0..<2).map { _ in try GatewayProcess(site.apply(journal: url, ["--lease", "3"])) }
    for gateway in gateways {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
    #expect(try site.notWrittenOnce() == [:])
    try await Self.expectAllVerified(url, count: site.count)
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// A gateway stopped (SIGSTOP) in the middle of a device — after reading it, before writing — for longer
  /// than its lease: the other gateway takes its devices over and verifies them; resumed (SIGCONT), the
  /// stopped one finds its lease gone at its next journal write (`LeaseFence`) and writes nothing.
  @Test func aGatewayPausedPastItsLeaseDoesNotWriteItsLostDevicesAgain() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 12, block: 2, heard: ["gw-1": -60, "gw-2": -62])
    try await site.prepareState()
    let options = ["--lease", "2", "--gateways", "2", "--settle", "60"]
    let paused = try GatewayProcess(site.apply(journal: url, options + ["--gateway", "gw-1", "-vv"]))
    let other = try GatewayProcess(site.apply(journal: url, options + ["--gateway", "gw-2"]))
    // As gw-1 starts reading a device (debug: "reading device=…"), stop it.
    let reading = await paused.line { $0.contains("reading") && $0.contains("device=") }
    try #require(reading, "gw-1 ended before it read a device:\n\(paused.tail.text)")
    paused.signal(SIGSTOP)
    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "test")
    let held = try await journal.connection.session {
      try $0.query(
        """
        SELECT l.address FROM bp_lease l JOIN bp_device d ON d.run_id = l.run_id AND d.address = l.address
          WHERE l.gateway = 'gw-1' AND d.state NOT IN ('verified', 'compliant', 'skipped')
        """
      ).rows.compactMap { $0[0] }
    }
    #expect(!held.isEmpty)
    // gw-2 takes them over once the lease has expired, and verifies them.
    var taken = false
    for _ in 0..<120 where !taken {
      try await Task.sleep(for: .milliseconds(500))
      let states = try await journal.devices(run: "site").filter { held.contains($0.address) }.map(\.state)
      taken = states.count == held.count && states.allSatisfy { $0 == .verified }
    }
    #expect(taken, "gw-2 did not verify gw-1's devices: \(other.tail.text)")
    paused.signal(SIGCONT)
    for gateway in [paused, other] {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
    #expect(try site.notWrittenOnce() == [:], "gw-1 held \(held) when stopped")
    try await Self.expectAllVerified(url, count: site.count)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// `pg_ctl restart` while two gateways work: each reconnects (`PostgresReconnect`) and goes on; before
  /// gateways reconnected, both stopped with "server closed the connection unexpectedly".
  @Test func gatewaysGoOnThroughAPostgreSQLRestart() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 40, block: 3, heard: ["gw-1": -60, "gw-2": -61])
    try await site.prepareState()
    let options = ["--lease", "6", "--gateways", "2", "--settle", "60", "-v"]
    let gateways = try ["gw-1", "gw-2"].map { try GatewayProcess(site.apply(journal: url, options + ["--gateway", $0])) }
    // Restart once a few devices are finished (info: "finished device=…").
    let working = await gateways[0].line { $0.contains("finished") && $0.contains("device=") }
    try #require(working, "gw-1 ended before it finished a device:\n\(gateways[0].tail.text)")
    try await server.restart()
    for gateway in gateways {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
    #expect(try site.notWrittenOnce() == [:])
    try await Self.expectAllVerified(url, count: site.count)
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
