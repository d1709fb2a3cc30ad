import BeaconCore
import Testing

@testable import Simulator
@testable import TextStream

/// A text-stream device's handles through the GATT cache, as a KBeacon's are: the first link discovers
/// and saves the known text-stream services, a second link to the unchanged device costs only the MTU
/// exchange, the Database Hash read and the Tx CCCD write, and its commands still get their answers.
/// Counted from the simulated device's own GATT server.
@Suite(.timeLimit(.minutes(2))) struct TextStreamGATTCacheTests {
  static let uart = SimulatedTextDeviceTests.uart

  static func open(_ simulation: KBeaconSimulation, cache: GATTTextStreamLink.Cache?) async throws -> TextStreamClient {
    let client = GATTClient(bearer: try await simulation.connect(to: uart))
    let link = try await GATTTextStreamLink.open(client, cache: cache)
    return TextStreamClient(link: link, timeouts: SimulatedTextDeviceTests.patient)
  }

  @Test func aSecondLinkToAnUnchangedDeviceSkipsDiscovery() async throws {
    let simulation = KBeaconSimulation(fleet: SimulatedTextDeviceTests.fleet(), now: { 0 })
    let server = simulation.server(for: simulation.fleet.devices.first { $0.address == Self.uart }!)
    let store = GATTCacheMemory()
    let cache: GATTTextStreamLink.Cache = (store, GATTCacheKey(address: Self.uart, type: .public))

    let uncached = try await Self.open(simulation, cache: nil)
    await uncached.close()
    let discoveryCost = await server.requestsReceived

    let first = try await Self.open(simulation, cache: cache)
    #expect(first.link.profile == .nordicUART)
    await first.close()
    let entry = try #require(await store.entry(for: cache.key))
    #expect(entry.services.map(\.uuid) == [TextStreamProfile.nordicUART.service])
    #expect(entry.databaseHash?.count == 16)

    let before = await server.requestsReceived
    let second = try await Self.open(simulation, cache: cache)
    #expect(await server.requestsReceived - before == 3, "MTU exchange, Database Hash read, Tx CCCD write")
    #expect(discoveryCost > 3 + 3)
    let answer = try await second.send("AT+NAME?")
    #expect(answer.lines.last == "OK", "\(answer.lines)")
    await second.close()
  }

  /// Cached handles the device no longer has (an entry for another table) are dropped, the table is
  /// discovered again on the same link, and the link works.
  @Test func anEntryThatNoLongerHoldsIsReplacedOnTheSameLink() async throws {
    let simulation = KBeaconSimulation(fleet: SimulatedTextDeviceTests.fleet(), now: { 0 })
    let store = GATTCacheMemory()
    let key = GATTCacheKey(address: Self.uart, type: .public)
    let wrong = GATTService(uuid: TextStreamProfile.nordicUART.service, startHandle: 200, endHandle: 205)
    await store.save(GATTCacheEntry(key: key, databaseHash: nil, services: [wrong], serviceChangedHandle: nil))

    let client = try await Self.open(simulation, cache: (store, key))
    let answer = try await client.send("AT+NAME?")
    #expect(answer.lines.last == "OK", "\(answer.lines)")
    await client.close()
    #expect(await store.entry(for: key)?.services.first?.startHandle != 200)
  }
}
