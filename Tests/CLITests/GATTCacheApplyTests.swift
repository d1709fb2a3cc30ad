import BeaconCore
import Fleet
import Foundation
import KBeacon
import Profiles
import Simulator
import Testing

/// `apply` through the campaign's KBeacon opener with a GATT cache, on the simulated fleet (the CLI's
/// `--adapter sim` composition), counting ATT requests on the devices' side: a second visit to an
/// unchanged device costs the fewest a cached visit can (MTU exchange, Database Hash read, FEA2 CCCD
/// write); after a firmware update that lays a device's table out anew, its entry is replaced and the apply
/// still writes and verifies.
@Suite(.timeLimit(.minutes(3))) struct GATTCacheApplyTests {
  static let addresses = ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02", "DD:34:02:06:D1:04"].map { BluetoothAddress($0)! }

  static func profile(major: Int) throws -> LoadedProfile {
    let list = addresses.map { "\"\($0)\"" }.joined(separator: ", ")
    let text =
      #"{"version": 1, "select": {"addresses": [\#(list)]}, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": \#(major), "minor": 5}]}}"#
    return try LoadedProfile.load(file: "p.json", read: { _ in Array(text.utf8) }, urlCheck: { _ in nil })
  }

  struct Simulation {
    let central: SimulatedCentral
    let kbeacons: KBeaconSimulation
    let cache = GATTCacheMemory()

    init() {
      (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    }

    func server(_ address: BluetoothAddress) -> GATTServer {
      kbeacons.server(for: DemoFleet.fleet.devices.first { $0.address == address }!)
    }

    /// Runs one apply; returns the summary and the ATT requests each device received during it.
    func apply(major: Int, gattCache: Bool = true) async throws -> (CampaignSummary, [BluetoothAddress: Int]) {
      var before: [BluetoothAddress: Int] = [:]
      for a in GATTCacheApplyTests.addresses { before[a] = await server(a).requestsReceived }
      let journal = try Journal(path: nil)
      let targets = GATTCacheApplyTests.addresses.map { Target(address: $0) }
      let run = try await journal.createRun(
        kind: "apply", source: "p.json", adapter: "sim", addresses: targets.map(\.address.description))
      let campaign = ApplyCampaign(
        profile: try GATTCacheApplyTests.profile(major: major), targets: targets,
        opener: KBeaconOpener(central: central, gattCache: gattCache ? cache : nil), journal: journal, run: run,
        options: .init(parallel: 2, retry: RetryPolicy(maximumAttempts: 2, firstDelay: .zero)),
        passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }))
      let summary = await campaign.start()
      var used: [BluetoothAddress: Int] = [:]
      for a in GATTCacheApplyTests.addresses { used[a] = await server(a).requestsReceived - before[a]! }
      return (summary, used)
    }
  }

  @Test func aSecondApplyToUnchangedDevicesCostsTheCachedMinimum() async throws {
    let sim = Simulation()
    let (first, firstUsed) = try await sim.apply(major: 41)
    #expect(first.count(.verified) == 3)
    // Without a cache the same visit discovers the whole table: many more requests.
    let (_, uncached) = try await sim.apply(major: 41, gattCache: false)
    let (second, secondUsed) = try await sim.apply(major: 41)
    #expect(second.count(.compliant) == 3)
    for a in Self.addresses {
      // MTU exchange + Database Hash read + FEA2 CCCD write: nothing else is an ATT request.
      #expect(secondUsed[a] == 3, "\(a)")
      #expect(firstUsed[a]! > 3 + 5 && uncached[a]! == firstUsed[a]! - 1, "\(a)")
    }
  }

  @Test func aFirmwareUpdateWithANewTableDropsTheEntryAndTheApplyStillVerifies() async throws {
    let sim = Simulation()
    _ = try await sim.apply(major: 42)
    let updated = Self.addresses[1]
    let key = GATTCacheKey(address: updated, type: .public)
    let before = try #require(await sim.cache.entry(for: key))
    // What the simulated bootloader does at the end of a DFU (the new application), here one whose GATT
    // table is laid out anew.
    let kbeacon = try #require(sim.kbeacons.kbeacon(updated))
    await kbeacon.installFirmware(version: "V5.40")
    await kbeacon.changeDatabase()
    let (summary, used) = try await sim.apply(major: 43)
    #expect(summary.count(.verified) == 3)
    let after = try #require(await sim.cache.entry(for: key))
    #expect(after.databaseHash != before.databaseHash)
    #expect(after.databaseHash == GATTDatabaseHash.value(of: sim.server(updated).table))
    #expect(
      after.database.characteristic(KBeaconGATT.write)?.valueHandle
        == sim.server(updated).table.valueHandle(of: KBeaconGATT.write))
    #expect(
      after.database.characteristic(KBeaconGATT.write)?.valueHandle
        != before.database.characteristic(KBeaconGATT.write)?.valueHandle)
    #expect(used[updated]! > used[Self.addresses[0]]!)
    let slot = await kbeacon.configuration.slots.first { $0.fields["slot"]?.intValue == 0 }
    #expect(slot?.fields["majorID"]?.intValue == 43)
  }
}
