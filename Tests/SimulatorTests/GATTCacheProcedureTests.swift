import BeaconCore
import Foundation
import KBeacon
import Testing

@testable import Simulator

/// `GATTClient.discover(keeping:cache:key:)` against simulated servers: a valid entry costs one round trip
/// (the Database Hash read, or Find Information over the cached service without a hash) and no
/// discovery; a changed table — new hash, or handles that moved on a device without one — drops the entry
/// and discovers again; a Service Changed indication drops it and closes the link.
@Suite(.timeLimit(.minutes(2))) struct GATTCacheProcedureTests {
  static let key = GATTCacheKey(address: GATTFixtures.device, type: .random)

  /// A KBeacon-like table; `extra` vendor characteristics before FEA0 move its handles; without a hash
  /// the GATT service has Service Changed only.
  static func services(extra: Int = 0, hash: Bool = true) -> [SimulatedService] {
    var services = GenericDeviceDatabase.kbeaconLike(name: "KBPro_cache")
    if !hash {
      services[1].characteristics.removeAll { $0.uuid != GATTCaching.serviceChanged }
    }
    if extra > 0 {
      let vendor = SimulatedService(
        uuid: BluetoothUUID(0xFFE0),
        characteristics: (1...extra).map {
          SimulatedCharacteristic(uuid: BluetoothUUID(UInt16(0xFFE0 + $0)), properties: [.read])
        })
      services.insert(vendor, at: services.count - 1)
    }
    return services
  }

  /// One visit: a new link, MTU exchange, cached discovery; returns the outcome and the round trips the
  /// cache step cost, counted on the server.
  static func visit(_ server: GATTServer, _ cache: any GATTCacheStore) async throws -> (
    GATTCacheOutcome, Int, GATTDatabase, GATTClient
  ) {
    let (client, _) = try await GATTFixtures.connect(server)
    _ = try await client.exchangeMTU()
    let before = await server.requestsReceived
    let (db, outcome) = try await client.discover(keeping: [KBeaconGATT.service], cache: cache, key: key)
    return (outcome, await server.requestsReceived - before, db, client)
  }

  @Test func aSecondVisitReadsOnlyTheHash() async throws {
    let cache = GATTCacheMemory()
    let server = GATTServer(services: Self.services())
    let (first, firstTrips, fullDB, c1) = try await Self.visit(server, cache)
    #expect(first == .noEntry)
    #expect(firstTrips > 5)
    let entry = try #require(await cache.entry(for: Self.key))
    #expect(entry.databaseHash == GATTDatabaseHash.value(of: server.table))
    #expect(entry.services.map(\.uuid) == [KBeaconGATT.service])
    #expect(entry.serviceChangedHandle == server.table.valueHandle(of: GATTCaching.serviceChanged))
    await c1.close()
    let (second, trips, db, c2) = try await Self.visit(server, cache)
    #expect(second == .hit)
    #expect(trips == 1)
    #expect(db.characteristic(KBeaconGATT.write)?.valueHandle == fullDB.characteristic(KBeaconGATT.write)?.valueHandle)
    #expect(await c2.database == db)
    await c2.close()
  }

  @Test func aNewTableDropsTheEntryAndIsDiscoveredAgain() async throws {
    let cache = GATTCacheMemory()
    let server = GATTServer(services: Self.services())
    _ = try await Self.visit(server, cache)
    let old = try #require(await cache.entry(for: Self.key))
    // New firmware: FEA0 moves by three handles, the hash changes.
    await server.replaceServices(Self.services(extra: 1))
    let (outcome, _, db, client) = try await Self.visit(server, cache)
    #expect(outcome == .hashChanged)
    let write = try #require(db.characteristic(KBeaconGATT.write))
    #expect(write.valueHandle == server.table.valueHandle(of: KBeaconGATT.write))
    #expect(write.valueHandle != old.database.characteristic(KBeaconGATT.write)?.valueHandle)
    let fresh = try #require(await cache.entry(for: Self.key))
    #expect(fresh.databaseHash == GATTDatabaseHash.value(of: server.table) && fresh != old)
    await client.close()
  }

  @Test func withoutAHashTheCachedServiceIsCheckedHandleByHandle() async throws {
    let cache = GATTCacheMemory()
    let server = GATTServer(services: Self.services(hash: false))
    let (first, _, _, c1) = try await Self.visit(server, cache)
    #expect(first == .noEntry)
    #expect(await cache.entry(for: Self.key)?.databaseHash == nil)
    #expect(await cache.entry(for: Self.key)?.serviceChangedHandle == nil)
    await c1.close()
    let (second, trips, _, c2) = try await Self.visit(server, cache)
    #expect(second == .hit)
    #expect(trips == 1)  // Find Information over FEA0
    await c2.close()
    await server.replaceServices(Self.services(extra: 1, hash: false))
    let (third, _, db, c3) = try await Self.visit(server, cache)
    #expect(third == .layoutChanged)
    #expect(db.characteristic(KBeaconGATT.notify)?.valueHandle == server.table.valueHandle(of: KBeaconGATT.notify))
    await c3.close()
  }

  /// Same handles, a characteristic's UUID changed: Find Information sees it.
  @Test func withoutAHashAChangedTypeAtACachedHandleIsNoticed() async throws {
    let cache = GATTCacheMemory()
    let server = GATTServer(services: Self.services(hash: false))
    _ = try await Self.visit(server, cache)
    var changed = Self.services(hash: false)
    changed[changed.count - 1].characteristics[2].uuid = BluetoothUUID(0xFEA9)
    await server.replaceServices(changed)
    let (outcome, _, _, client) = try await Self.visit(server, cache)
    #expect(outcome == .layoutChanged)
    await client.close()
  }

  @Test func serviceChangedDropsTheEntryAndClosesTheLink() async throws {
    let cache = GATTCacheMemory()
    let server = GATTServer(services: Self.services())
    _ = try await Self.visit(server, cache)
    let (outcome, _, _, client) = try await Self.visit(server, cache)
    #expect(outcome == .hit)
    // As bluetoothd's subscription on the link would: Service Changed indications enabled.
    let handle = try #require(server.table.valueHandle(of: GATTCaching.serviceChanged))
    try await client.write([0x02, 0x00], to: handle + 1)
    await server.replaceServices(Self.services(extra: 2))
    for _ in 0..<200 where await client.terminationError == nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(await client.terminationError != nil)
    #expect(await cache.entry(for: Self.key) == nil)
  }
}
