import BeaconCore
import Fleet
import Foundation
import Testing

@testable import FleetIO

/// A gateway waiting for the others to join (`--gateways`, `--settle`) stays alive to them: its heartbeat
/// runs from its join, so a gateway joining more than a lease later still leaves it the devices it hears
/// best. Before, the heartbeat began only after the wait, the waiting gateway counted as dead when the claims
/// began, and the late one took every device (`reconcile` on several gateways showed it).
@Suite(.timeLimit(.minutes(3))) struct SiteCampaignSettleTests {
  @Test func aGatewayWaitingForTheOthersIsNotTakenForDead() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let visits = SiteCampaignTests.Visits()
      // A 5 s lease, renewed three times per lease: a sanitizer's slowness cannot make a live gateway miss it (3 s
      // flaked once under ThreadSanitizer on two loaded cores).
      let settings = CoordinationSettings(leaseSeconds: 5)
      let near = SiteCampaignTests.address(1)
      func site(_ name: String, rssi: Int) async throws -> (SiteCampaign, PostgresJournal) {
        let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: name)
        let targets = [Target(address: near, rssi: rssi)]
        _ = try await journal.createRun(
          kind: "apply", source: "p.json", adapter: name, addresses: [near.description], id: "site")
        return (
          SiteCampaign(
            coordinator: GatewayCoordinator(journal: journal, settings: settings), run: "site", targets: targets,
            batchSize: 1, pollSeconds: 0.05, settle: (gateways: 2, seconds: 60)),
          journal
        )
      }
      // gw-near joins and waits for a second gateway; gw-far joins more than three leases later.
      let (first, firstJournal) = try await site("gw-near", rssi: -50)
      let waiting = Task { try await first.start(batch: SiteCampaignTests.batch(firstJournal, "site", visits)) }
      try await Task.sleep(for: .seconds(16))
      let (second, secondJournal) = try await site("gw-far", rssi: -80)
      let late = try await second.start(batch: SiteCampaignTests.batch(secondJournal, "site", visits))
      let early = try await waiting.value
      #expect(visits.all == [near.description: ["gw-near"]], "\(visits.all)")
      #expect(early.outcomes.keys.sorted() == [near.description] && late.outcomes.isEmpty)
    }
  }
}
