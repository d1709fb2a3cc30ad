import BeaconCore
import Fleet
import Foundation
import Synchronization
import TestServers
import Testing

@testable import FleetIO

/// A round that leaves a shadowed device for a later one (`Campaign.Options.deferShadowed`: pending, journalled
/// `bootloaderAtAddress`, named in the round's `CampaignSummary.deferred`): the site campaign takes it up again,
/// after its other open devices, until it ends — on a real PostgreSQL journal.
@Suite(.timeLimit(.minutes(3))) struct SiteCampaignShadowedTests {
  @Test func aDeviceLeftForALaterRoundIsTakenUpAgainAfterTheOthers() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let journal = try await PostgresJournal(
        connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "gw")
      let targets = (0..<3).map { Target(address: SiteCampaignTests.address(0x10 + $0), rssi: -60) }
      _ = try await journal.createRun(
        kind: "dfu", source: "p.zip", adapter: "x", addresses: targets.map(\.address.description), id: "site")
      let shadowed = targets[0].address.description
      let order = Mutex<[String]>([])
      let summary = try await SiteCampaign(
        coordinator: GatewayCoordinator(journal: journal, settings: CoordinationSettings(leaseSeconds: 4)),
        run: "site", targets: targets, batchSize: 1, pollSeconds: 0.05
      ).start { claimed in
        var outcomes: [String: DeviceOutcome] = [:]
        var deferred: Set<String> = []
        for t in claimed {
          let address = t.address.description
          let visits = order.withLock {
            $0.append(address)
            return $0.filter { $0 == address }.count
          }
          if address == shadowed, visits <= 2 {
            try? await journal.record(
              run: "site", address: address, state: .pending, detail: "a bootloader answers",
              failureKind: .bootloaderAtAddress)
            outcomes[address] = .pending
            deferred.insert(address)
          } else {
            try? await journal.record(run: "site", address: address, state: .verified)
            outcomes[address] = .updated([])
          }
        }
        var summary = CampaignSummary(run: "site", outcomes: outcomes, interrupted: false)
        summary.deferred = deferred
        return summary
      }
      let short = order.withLock { $0 }.map { String($0.suffix(2)) }
      #expect(short == ["10", "11", "12", "10", "10"], "the shadowed device after the others, then again until done")
      #expect(!summary.interrupted && summary.outcomes.values.allSatisfy { $0 != .pending }, "\(summary.outcomes)")
      await journal.connection.close()
    }
  }
}
