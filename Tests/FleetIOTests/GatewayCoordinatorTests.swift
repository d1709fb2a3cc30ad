import Fleet
import Foundation
import TestServers
import Testing

@testable import FleetIO

/// Claims, leases and the nearest gateway on a real server (one campaign across gateways).
/// Expiry is tested without waiting: a lease of 0 s is expired by the server's next statement.
@Suite(.timeLimit(.minutes(5))) struct GatewayCoordinatorTests {
  static let a = "C2:00:00:00:00:01", b = "C2:00:00:00:00:02"

  /// Three gateways on one fresh database, the run "site" with devices a and b.
  static func site(
    _ server: PostgresServer, lease: Double = 30
  ) async throws -> [GatewayCoordinator] {
    let url = try await server.createDatabase()
    var gateways: [GatewayCoordinator] = []
    for name in ["gw-1", "gw-2", "gw-3"] {
      let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: name)
      _ = try await journal.createRun(kind: "apply", source: "p.json", adapter: "hci0", addresses: [a, b], id: "site")
      let coordinator = GatewayCoordinator(journal: journal, settings: CoordinationSettings(leaseSeconds: lease))
      try await coordinator.join(run: "site")
      gateways.append(coordinator)
    }
    return gateways
  }

  @Test func onlyOneGatewayHoldsADeviceAndItIsFreeAgainOnceReleased() async throws {
    try await withPostgres { server in
      let gw = try await Self.site(server)
      for g in gw { try await g.recordSightings([Self.a: -70]) }
      let claims = try await withThrowingTaskGroup(of: GatewayCoordinator.Claim.self) { group in
        for g in gw { group.addTask { try await g.claim(run: "site", address: Self.a) } }
        return try await group.reduce(into: [GatewayCoordinator.Claim]()) { $0.append($1) }
      }
      #expect(claims.filter { $0 == .claimed }.count == 1)
      let holder = try #require(
        try await gw[0].journal.connection.session {
          try $0.query("SELECT gateway FROM bp_lease WHERE address = $1", [Self.a]).rows.first?.first ?? nil
        })
      #expect(claims.filter { $0 == .held(by: holder) }.count == 2)
      // The holder claims again (a renewal), the others still cannot; once released, another can.
      let owner = try #require(gw.first { $0.gateway == holder })
      let other = try #require(gw.first { $0.gateway != holder })
      #expect(try await owner.claim(run: "site", address: Self.a) == .claimed)
      #expect(try await other.claim(run: "site", address: Self.a) == .held(by: holder))
      try await owner.release(run: "site", address: Self.a)
      #expect(try await other.claim(run: "site", address: Self.a) == .claimed)
    }
  }

  @Test func aDeviceTheJournalRecordsDoneOrPlannedIsNotClaimedAgain() async throws {
    try await withPostgres { server in
      let gw = try await Self.site(server)
      for g in gw { try await g.recordSightings([Self.a: -70, Self.b: -70]) }
      #expect(try await gw[0].claim(run: "site", address: Self.a) == .claimed)
      try await gw[0].journal.record(run: "site", address: Self.a, state: .verified, countWrite: true)
      try await gw[0].release(run: "site", address: Self.a)
      #expect(try await gw[1].claim(run: "site", address: Self.a) == .done)
      // A `plan` run's planned device is done too: one gateway's read is enough.
      #expect(try await gw[1].claim(run: "site", address: Self.b) == .claimed)
      try await gw[1].journal.record(run: "site", address: Self.b, state: .planned)
      try await gw[1].release(run: "site", address: Self.b)
      #expect(try await gw[2].claim(run: "site", address: Self.b) == .done)
      // So is a failed one: no other gateway retries it (`SiteCampaign.settled`; `--resume` does). A gateway
      // that had read the device while it was worked on, and claimed it once the failing one let it go, wrote
      // it a second time when the claim took failed devices.
      try await gw[1].journal.record(
        run: "site", address: Self.b, state: .failed, detail: "timeout", failureKind: .transient)
      #expect(try await gw[2].claim(run: "site", address: Self.b) == .done)
      #expect(try await gw[1].claim(run: "site", address: "C2:00:00:00:00:99") == .notHeard)
      try await gw[1].recordSightings(["C2:00:00:00:00:99": -50])
      #expect(try await gw[1].claim(run: "site", address: "C2:00:00:00:00:99") == .notInRun)
    }
  }

  @Test func aDeviceIsLeftToTheGatewayThatHearsItClearlyBetterWhileThatOneIsAlive() async throws {
    try await withPostgres { server in
      let gw = try await Self.site(server)
      try await gw[0].recordSightings([Self.a: -85])
      try await gw[1].recordSightings([Self.a: -62])
      try await gw[2].recordSightings([Self.a: -66])
      #expect(try await gw[0].claim(run: "site", address: Self.a) == .left(to: "gw-2", rssi: -62))
      // gw-3 is within 6 dB of gw-2: an equal, it may take the device.
      #expect(try await gw[2].claim(run: "site", address: Self.a) == .claimed)
      // A gateway whose heartbeat is older than a lease counts as gone: its sightings no longer count.
      try await gw[0].journal.connection.session { s in
        try s.query("UPDATE bp_gateway SET heartbeat_at = now() - interval '1 hour' WHERE gateway <> 'gw-1'")
      }
      #expect(try await gw[0].claim(run: "site", address: Self.b) == .notHeard)
      try await gw[0].recordSightings([Self.b: -90])
      try await gw[1].recordSightings([Self.b: -40])
      #expect(try await gw[0].claim(run: "site", address: Self.b) == .claimed)
      // Sightings older than the window do not count either (gw-2's of a is made two minutes old).
      try await gw[0].journal.connection.session { s in
        try s.query("UPDATE bp_gateway SET heartbeat_at = now()")
        try s.query("UPDATE bp_sighting SET seen_at = now() - interval '2 minutes' WHERE gateway = 'gw-2'")
        try s.query("DELETE FROM bp_lease")
      }
      #expect(try await gw[0].claim(run: "site", address: Self.a) == .left(to: "gw-3", rssi: -66))
    }
  }

  /// A claim run again after a reconnect (its first run took the lease, and the reply was lost) may decide
  /// the second time to leave the device: a better sighting came meanwhile. The lease it took is dropped;
  /// kept, every heartbeat would renew it, and the gateway the device is left to would wait for it for good.
  @Test func aClaimThatLeavesTheDeviceDropsALeaseOfItsOwn() async throws {
    try await withPostgres { server in
      let gw = try await Self.site(server)
      try await gw[0].recordSightings([Self.a: -70])
      #expect(try await gw[0].claim(run: "site", address: Self.a) == .claimed)
      try await gw[1].recordSightings([Self.a: -40])
      #expect(try await gw[0].claim(run: "site", address: Self.a) == .left(to: "gw-2", rssi: -40))
      try await gw[0].heartbeat(run: "site")
      #expect(try await gw[1].claim(run: "site", address: Self.a) == .claimed)
    }
  }

  @Test func aDeadGatewaysLeaseExpiresAndAnotherTakesItsDeviceButARenewedOneHolds() async throws {
    try await withPostgres { server in
      // Leases of 0 s: expired for the next statement unless renewed in between.
      let gw = try await Self.site(server, lease: 0)
      for g in gw { try await g.recordSightings([Self.a: -70]) }
      #expect(try await gw[0].claim(run: "site", address: Self.a) == .claimed)
      #expect(try await gw[1].claim(run: "site", address: Self.a) == .claimed)
      // A renewal pushes the lease out by the lease time: a long one holds against the others.
      let longLease = GatewayCoordinator(journal: gw[1].journal, settings: CoordinationSettings(leaseSeconds: 3600))
      try await longLease.heartbeat(run: "site")
      #expect(try await gw[2].claim(run: "site", address: Self.a) == .held(by: "gw-2"))
      let expires = try await gw[0].journal.connection.session {
        try $0.query("SELECT expires_at > now() + interval '59 minutes' FROM bp_lease WHERE address = $1", [Self.a])
          .rows
      }
      #expect(expires == [["t"]])
    }
  }
}
