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
    let pair = try await PausedGatewayPair.start(
      count: 6, block: 5, target: 2, hook: "in-registry", said: "inside the registry's transaction for"
    ) { site, url, parallel, options in site.apply(journal: url, parallel: parallel, options) }
    let target = pair.target
    let stoppedAt = ContinuousClock.now
    let observer = try await PostgresConnection.connect(try PostgresURL(pair.url, origin: "test"))
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
    let taken = try await pair.targetVerified(in: journal)
    #expect(taken, "gw-2 did not verify \(target) while gw-1 was stopped: \(pair.other.tail.text)")
    // gw-2 waited on the locked row until the server ended gw-1's transaction: not before the 10 s bound
    // (a lower bound, which a loaded machine only lengthens; 7 s leaves room for reading the stop's line late).
    #expect(ContinuousClock.now - stoppedAt >= .seconds(7), "gw-2 verified \(target) without waiting for the row")
    await pair.resumeAndFinish()
    #expect(try pair.site.notWrittenOnce() == [:])
    // The one write of the device is gw-2's.
    try pair.expectTargetWrittenByTheOtherOnly(what: "cfg")
    try await SeveralGatewaysFaultsTests.expectAllVerified(pair.url, count: pair.site.count)
    await observer.close()
    await pair.stop()
  }
}
