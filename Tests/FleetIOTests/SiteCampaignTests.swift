import BeaconCore
import Fleet
import Foundation
import Synchronization
import TestServers
import Testing

@testable import FleetIO

/// Several gateways' `SiteCampaign`s over one shared run on a real server: every device handled
/// exactly once, by a gateway that hears it best (within the margin), and a dead gateway's devices finished
/// by another after its leases expire.
@Suite(.timeLimit(.minutes(5))) struct SiteCampaignTests {
  /// Which gateway visited each device, how many times.
  final class Visits: Sendable {
    let byDevice = Mutex<[String: [String]]>([:])
    func add(_ address: String, _ gateway: String) { byDevice.withLock { $0[address, default: []].append(gateway) } }
    var all: [String: [String]] { byDevice.withLock { $0 } }
  }

  static func address(_ i: Int) -> BluetoothAddress { BluetoothAddress(rawValue: 0xC200_0000_0000 + UInt64(i)) }

  /// A round's work: the device is "updated" and journalled verified, as a campaign would.
  static func batch(_ journal: PostgresJournal, _ run: String, _ visits: Visits)
    -> @Sendable ([Target]) async -> CampaignSummary
  {
    { targets in
      var outcomes: [String: DeviceOutcome] = [:]
      for t in targets {
        visits.add(t.address.description, journal.gateway)
        try? await journal.record(run: run, address: t.address.description, state: .verified, countWrite: true)
        outcomes[t.address.description] = .updated([])
      }
      return CampaignSummary(run: run, outcomes: outcomes, interrupted: false)
    }
  }

  @Test func threeGatewaysHandleEachDeviceOnceEachByAGatewayThatHearsItBest() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      // 24 devices; gateway g hears device i when (i + g) % 3 != 0, at -50 - 5 * ((i + g) % 4) dBm: overlaps,
      // some clearly better, some equal.
      let gateways = ["gw-0", "gw-1", "gw-2"]
      func rssi(_ i: Int, _ g: Int) -> Int? { (i + g) % 3 == 0 ? nil : -50 - 5 * ((i + g) % 4) }
      let visits = Visits()
      let summaries = try await withThrowingTaskGroup(of: CampaignSummary.self) { group in
        for (g, name) in gateways.enumerated() {
          group.addTask {
            let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: name)
            let targets = (0..<24).compactMap { i in rssi(i, g).map { Target(address: Self.address(i), rssi: $0) } }
            _ = try await journal.createRun(
              kind: "apply", source: "p.json", adapter: name, addresses: targets.map(\.address.description), id: "site")
            let site = SiteCampaign(
              coordinator: GatewayCoordinator(journal: journal), run: "site", targets: targets, batchSize: 3,
              pollSeconds: 0.05,
              settle: (gateways: 3, seconds: 600))
            return try await site.start(batch: Self.batch(journal, "site", visits))
          }
        }
        return try await group.reduce(into: [CampaignSummary]()) { $0.append($1) }
      }
      let all = visits.all
      #expect(all.count == 24)
      #expect(all.values.allSatisfy { $0.count == 1 })
      #expect(summaries.map(\.outcomes.count).reduce(0, +) == 24)
      for i in 0..<24 {
        let best = (0..<3).compactMap { rssi(i, $0) }.max()!
        let by = try #require(gateways.firstIndex(of: all[Self.address(i).description]?.first ?? ""))
        // The gateway that handled it heard it, and within the margin of the best.
        #expect(try #require(rssi(i, by)) > best - 6, "device \(i) handled by \(gateways[by])")
      }
      let check = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "check")
      let rows = try await check.devices(run: "site")
      #expect(rows.count == 24 && rows.allSatisfy { $0.state == .verified && $0.writes == 1 })
    }
  }

  @Test func aDeadGatewaysClaimedDevicesAreFinishedByAnotherOnceItsLeasesExpire() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      // 4 s, not 0.5: the survivor's own leases must outlive a visit on a loaded machine (a lease lost mid-visit
      // is fenced off and the device visited again — right, but not what this test is about; 2 s flaked once
      // under ThreadSanitizer on two loaded cores).
      let settings = CoordinationSettings(leaseSeconds: 4)
      let targets = (0..<4).map { Target(address: Self.address($0), rssi: -60) }
      let dead = GatewayCoordinator(
        journal: try await PostgresJournal(connection: try await connect(server, database: url), gateway: "dead"),
        settings: settings)
      _ = try await dead.journal.createRun(
        kind: "apply", source: "p.json", adapter: "x", addresses: targets.map(\.address.description), id: "site")
      try await dead.join(run: "site")
      // The dead gateway heard every device far better, claimed two and got one of them half-way.
      try await dead.recordSightings(Dictionary(uniqueKeysWithValues: targets.map { ($0.address.description, -30) }))
      for t in targets.prefix(2) {
        #expect(try await dead.claim(run: "site", address: t.address.description) == .claimed)
      }
      try await dead.journal.record(
        run: "site", address: targets[0].address.description, state: .working, step: "written", countWrite: true)
      // ...and then nothing more: no heartbeat, no release.
      let survivor = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "alive")
      let visits = Visits()
      let summary = try await SiteCampaign(
        coordinator: GatewayCoordinator(journal: survivor, settings: settings), run: "site", targets: targets,
        batchSize: 4,
        pollSeconds: 0.1
      ).start(batch: Self.batch(survivor, "site", visits))
      #expect(Set(visits.all.keys) == Set(targets.map(\.address.description)))
      #expect(visits.all.values.allSatisfy { $0 == ["alive"] })
      #expect(summary.outcomes.count == 4 && !summary.interrupted)
      // The journal keeps the dead gateway's write of device 0 and the survivor's.
      #expect(try await survivor.device(run: "site", address: targets[0].address.description)?.writes == 2)
    }
  }
}
