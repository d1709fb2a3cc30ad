import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// A gateway frozen (SIGSTOP) *inside* a transaction on the shared server, holding a row another gateway
/// needs: with real `apply` processes on a real PostgreSQL server, proved by the simulated devices' shared
/// write log like the other faults (`SeveralGatewaysFaultsTests`).
@Suite(.timeLimit(.minutes(4))) struct SeveralGatewaysFreezeTests {
  /// gw-1 stops inside the shared registry's transaction that records its read of `target` — the device's
  /// registry row locked — and stays stopped past its lease. gw-2 takes the device over, and its visit's own
  /// read of the device waits on that row: without the server's bound on an idle transaction
  /// (`PostgresReconnect.defaultIdleInTransactionSeconds`, 10 s) it would wait for as long as gw-1 stays
  /// stopped. With it, the server ends gw-1's session after 10 s, gw-2 verifies the device, and gw-1, resumed,
  /// runs its registry transaction again on a new connection, finds its lease gone at the fenced pre-write
  /// record and writes nothing: every device written once.
  @Test func aGatewayFrozenInsideATransactionStallsAnotherOnlyUntilTheServerEndsIt() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 6, block: 5, heard: ["gw-1": -55, "gw-2": -70])
    try await site.prepareState()
    let target = site.address(2)
    let options = ["--lease", "2", "--gateways", "2", "--settle", "60"]
    // gw-1 hears every device clearly better, so it claims them all, one at a time, while it is alive.
    let frozen = try GatewayProcess(
      site.apply(journal: url, parallel: 1, options + ["--gateway", "gw-1"]),
      environment: [SimulatorPauseHook.environmentVariable: "in-registry:\(target)"])
    let other = try GatewayProcess(site.apply(journal: url, options + ["--gateway", "gw-2"]))
    let stopped = await frozen.line {
      $0.contains("test hook: stopped inside the registry's transaction for \(target)")
    }
    if !stopped { Issue.record("gw-1 ended before it stopped at \(target): \(await frozen.finish())") }
    try #require(stopped)
    let stoppedAt = ContinuousClock.now
    #expect(await frozen.isStopped(), "gw-1 said it stopped but is not")
    let observer = try await PostgresConnection.connect(try PostgresURL(url, origin: "test"))
    // The server sees gw-1's session idle inside its transaction (until the bound ends it): the only one idle
    // there for over a second (another session passes through that state between a transaction's statements).
    var frozenSessions: String?
    for _ in 0..<20 where frozenSessions != "1" {
      try await Task.sleep(for: .milliseconds(250))
      frozenSessions = try await observer.session { s in
        try s.query(
          """
          SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'
            AND now() - state_change > interval '1 second'
          """
        ).rows.first?[0] ?? nil
      }
    }
    #expect(frozenSessions == "1", "sessions idle in a transaction for over a second: \(frozenSessions ?? "none")")
    let journal = try await PostgresJournal(connection: observer, gateway: "test")
    var taken = false
    for _ in 0..<120 where !taken {
      try await Task.sleep(for: .milliseconds(500))
      taken = try await journal.device(run: "site", address: target)?.state == .verified
    }
    #expect(taken, "gw-2 did not verify \(target) while gw-1 was stopped: \(other.tail.text)")
    // gw-2 waited on the locked row until the server ended gw-1's transaction: not before the 10 s bound
    // (a lower bound, which a loaded machine only lengthens; 7 s leaves room for reading the stop's line late).
    #expect(ContinuousClock.now - stoppedAt >= .seconds(7), "gw-2 verified \(target) without waiting for the row")
    frozen.signal(SIGCONT)
    for gateway in [frozen, other] {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
    #expect(try site.notWrittenOnce() == [:])
    // The one write of the device is gw-2's.
    let writes = try site.writeLog.writes().filter { $0.address == target && $0.what == "cfg" }
    #expect(writes.map(\.pid) == [other.process.processIdentifier], "\(writes)")
    try await SeveralGatewaysFaultsTests.expectAllVerified(url, count: site.count)
    await observer.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
