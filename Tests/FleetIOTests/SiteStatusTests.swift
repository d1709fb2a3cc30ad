import Fleet
import Foundation
import TestServers
import Testing

@testable import FleetIO

/// `campaign status` over a shared run: whose device each one is.
@Suite(.timeLimit(.minutes(3))) struct SiteStatusTests {
  static let a = "C2:00:00:00:00:01", b = "C2:00:00:00:00:02", c = "C2:00:00:00:00:03"

  /// gw-1 creates the run with every device; gw-2 hears b best and gw-1 holds c's lease. Pending devices are
  /// counted under the gateway that hears them best or holds them, not under gw-1 for having created their
  /// rows; a device recorded stays under the gateway that recorded it.
  @Test func aPendingDeviceCountsUnderTheGatewayThatHearsItBestNotTheOneThatCreatedIt() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      var gateways: [GatewayCoordinator] = []
      for name in ["gw-1", "gw-2"] {
        let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: name)
        gateways.append(GatewayCoordinator(journal: journal))
      }
      let (one, two) = (gateways[0], gateways[1])
      _ = try await one.journal.createRun(
        kind: "apply", source: "p.json", adapter: "hci0", addresses: [Self.a, Self.b, Self.c], id: "site")
      try await one.recordSightings([Self.a: -60, Self.b: -80, Self.c: -70])
      try await two.recordSightings([Self.a: -75, Self.b: -55, Self.c: -50])
      for g in gateways { try await g.join(run: "site") }
      // gw-1 holds c though gw-2 hears it better (it claimed it before gw-2's sighting arrived).
      try await one.journal.connection.session { s in
        try s.query(
          "INSERT INTO bp_lease (run_id, address, gateway, expires_at) VALUES ('site', $1, 'gw-1', now() + interval '30 seconds')",
          [Self.c])
      }
      try await two.journal.record(run: "site", address: Self.a, state: .verified, countWrite: true)

      let status = try #require(try await one.journal.status(run: "site", leaseSeconds: 30))
      let byAddress = Dictionary(uniqueKeysWithValues: status.devices.map { ($0.address, $0) })
      #expect(byAddress[Self.a]?.gateway == "gw-2")  // recorded by gw-2
      #expect(byAddress[Self.b]?.gateway == "gw-2")  // pending, heard best by gw-2
      #expect(byAddress[Self.c]?.gateway == "gw-1" && byAddress[Self.c]?.leasedBy == "gw-1")  // pending, held by gw-1
      let counts = Dictionary(uniqueKeysWithValues: status.gateways.map { ($0.name, $0.devices) })
      #expect(counts["gw-1"] == ["pending": 1])
      #expect(counts["gw-2"] == ["verified": 1, "pending": 1])
      await one.journal.connection.close()
      await two.journal.connection.close()
    }
  }
}
