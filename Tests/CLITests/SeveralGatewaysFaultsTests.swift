import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

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
    #expect(
      rows.allSatisfy { $0.state == .verified && $0.writes == 1 },
      "\(rows.filter { $0.state != .verified || $0.writes != 1 })")
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

  /// A gateway stopped (SIGSTOP) in the middle of a device — after reading it, just before the fenced
  /// pre-write record — for longer than its lease: the other gateway takes the device over and verifies it;
  /// resumed (SIGCONT), the stopped one finds its lease gone at that record (`LeaseFence`) and writes
  /// nothing. The stop comes from the gateway itself at that exact step (`SimulatorPauseHook`,
  /// `before-write:ADDRESS`): stopped from outside on a log line it could land after the record, where the
  /// write that follows is the fence's documented gap (which ASan's slowness hit: a double write).
  @Test func aGatewayPausedPastItsLeaseDoesNotWriteItsLostDevicesAgain() async throws {
    try await Self.applyPausedPastItsLease(count: 8, hook: "before-write", said: "before writing") { _ in }
  }

  /// A gateway stopped just before a device's `connecting` record for longer than its lease: on the shared
  /// journal that record proves the lease and comes before the link (`CampaignJournal.fencesDevices`), so
  /// resumed, the gateway finds the device taken there and never links to it — not even to authenticate,
  /// which sets a KBeacon's clock. Proof from the shared write log, where each authentication is a line
  /// (`SimulatedWrite.what` "auth"): every link that reached the device was gw-2's.
  @Test func aGatewayPausedPastItsLeaseBeforeConnectingNeverLinksToItsLostDevice() async throws {
    try await Self.applyPausedPastItsLease(count: 6, hook: "before-connect", said: "before connecting") { pair in
      let links = try pair.site.writeLog.writes().filter { $0.address == pair.target && $0.what == "auth" }
      #expect(!links.isEmpty && links.allSatisfy { $0.pid == pair.other.process.processIdentifier }, "\(links)")
      // gw-1 did link to the devices it kept: the log's authentications are not gw-2's alone.
      let gw1 = pair.paused.process.processIdentifier
      #expect(try pair.site.writeLog.writes().contains { $0.what == "auth" && $0.pid == gw1 })
    }
  }

  /// Two `apply` gateways, gw-1 stopped at `hook` for the site's third device past its lease
  /// (`PausedGatewayPair`): gw-2 takes the device over and verifies it; both resumed and ended, every device
  /// was written once, the lost device by gw-2 alone, and all are verified; then `check` looks further.
  static func applyPausedPastItsLease(
    count: Int, hook: String, said: String, check: (PausedGatewayPair) throws -> Void
  ) async throws {
    let pair = try await PausedGatewayPair.start(
      count: count, block: 2, target: 2, hook: hook, said: said
    ) { site, url, parallel, options in site.apply(journal: url, parallel: parallel, options) }
    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(pair.url, origin: "test")), gateway: "test")
    // gw-2 takes the device over once gw-1's lease has expired, and verifies it.
    #expect(try await pair.targetVerified(in: journal), "gw-2 did not verify \(pair.target): \(pair.other.tail.text)")
    await pair.resumeAndFinish()
    #expect(try pair.site.notWrittenOnce() == [:])
    // The one write of the device is gw-2's.
    try pair.expectTargetWrittenByTheOtherOnly(what: "cfg")
    try check(pair)
    try await Self.expectAllVerified(pair.url, count: pair.site.count)
    await journal.connection.close()
    await pair.stop()
  }

  /// `pg_ctl restart` while two gateways work: each reconnects (`PostgresReconnect`) and goes on; before
  /// gateways reconnected, both stopped with "server closed the connection unexpectedly".
  @Test func gatewaysGoOnThroughAPostgreSQLRestart() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 40, block: 3, heard: ["gw-1": -60, "gw-2": -61])
    try await site.prepareState()
    let options = ["--lease", "6", "--gateways", "2", "--settle", "60", "-v"]
    let gateways = try ["gw-1", "gw-2"].map {
      try GatewayProcess(site.apply(journal: url, options + ["--gateway", $0]))
    }
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
