import BeaconCore
import Synchronization
import Testing

@testable import BeaconProvisionCLI
@testable import Simulator

/// `gatt notify` turns the subscription off before it leaves (CCCD back to 0x0000, Core v5.4 Vol 3 Part G
/// §3.3.3.3), after N values and when interrupted, so the peripheral never queues an indication nobody
/// will confirm (Part F §3.3.3: 30 s).
@Suite("gatt notify", .timeLimit(.minutes(1)))
struct GattNotifyTests {
  static let indicated = BluetoothUUID(0xFF02)

  /// A peripheral with one indicate-only characteristic, linked to a client; the server side's connection.
  func peripheral() async throws -> (GATTClient, GATTServerConnection, UInt16) {
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF00),
        characteristics: [SimulatedCharacteristic(uuid: Self.indicated, properties: [.indicate])])
    ])
    let (bearer, _) = try await SimulatedLink.open(
      to: server, device: BluetoothAddress("C4:00:00:00:00:02")!, model: .instant)
    let connection = try #require(await server.activeConnections.first)
    return (GATTClient(bearer: bearer), connection, try #require(server.valueHandle(of: Self.indicated)))
  }

  @Test func afterCountValuesTheCCCDIsZeroAgain() async throws {
    let (client, connection, handle) = try await peripheral()
    let lines = Mutex<[String]>([])
    try await GATTNotifyCommand.watch(
      client, uuid: Self.indicated, count: 1, emit: { line in lines.withLock { $0.append(line) } },
      subscribed: { _ in
        // Subscribed with indications (0x0002), the characteristic has no notify property.
        #expect(await connection.cccd[handle] == 0x0002)
        #expect(try! await connection.indicate(Self.indicated, [0x4B, 0x42]))
      })
    #expect(lines.withLock { $0 } == ["4B 42  \"KB\""])
    #expect(await connection.cccd[handle] == 0x0000)
    #expect(await !connection.isSubscribed(Self.indicated, indications: true))
  }

  @Test func anInterruptedWatchAlsoWritesTheCCCDBack() async throws {
    let (client, connection, handle) = try await peripheral()
    let (subscribed, signal) = AsyncStream.makeStream(of: Void.self)
    let watch = Task {
      try await GATTNotifyCommand.watch(
        client, uuid: Self.indicated, count: nil, emit: { _ in }, subscribed: { _ in signal.yield() })
    }
    for await _ in subscribed { break }
    #expect(await connection.cccd[handle] == 0x0002)
    watch.cancel()  // what Ctrl-C does (SignalCancellation)
    try await watch.value
    #expect(await connection.cccd[handle] == 0x0000)
  }
}
