import BeaconCore
import BlueZ
import Testing

@testable import Simulator

/// The device-building API other simulated devices (KBeacon, DFU) stand on: handlers, replies after the
/// response, per-connection identity, device-side disconnect.
@Suite(.timeLimit(.minutes(3))) struct GATTDeviceAPITests {
  static let command = BluetoothUUID(0xFEA1)
  static let reply = BluetoothUUID(0xFEA2)

  /// An echo device: every write to FEA1 is notified back on FEA2, reversed, after the Write Response;
  /// writing 0xFF reboots it (drops the link).
  func echoServer(disconnects: Recorder<Int>) -> GATTServer {
    GATTServer(
      services: [
        SimulatedService(
          uuid: BluetoothUUID(0xFEA0),
          characteristics: [
            SimulatedCharacteristic(uuid: Self.command, properties: [.write, .writeWithoutResponse]) { write in
              let connection = write.connection
              if write.value == [0xFF] {
                await connection.afterResponse { await connection.disconnect() }
                return
              }
              let reply = Array(write.value.reversed())
              await connection.afterResponse { await connection.notify(Self.reply, reply) }
            },
            SimulatedCharacteristic(uuid: Self.reply, properties: [.notify]),
          ])
      ],
      onDisconnect: { connection in disconnects.append(connection.id) })
  }

  @Test func replyNotificationFollowsTheWriteResponse() async throws {
    let server = echoServer(disconnects: Recorder())
    let (bearer, _) = try await SimulatedLink.open(to: server, device: GATTFixtures.device)
    var incoming = bearer.incoming.makeAsyncIterator()
    let command = try #require(server.valueHandle(of: Self.command))
    let reply = try #require(server.valueHandle(of: Self.reply))
    let cccd = try #require(server.table.cccdHandle(forValue: reply))
    // → 12 <cccd> 0100: notifications on ← 13
    try await bearer.send(ATTWriteRequest(handle: cccd, value: [0x01, 0x00]).bytes)
    #expect(try await incoming.next() == [0x13])
    // → 12 <command> 01 02 03 ← 13 Write Response, then ← 1B <reply> 03 02 01
    try await bearer.send(ATTWriteRequest(handle: command, value: [1, 2, 3]).bytes)
    #expect(try await incoming.next() == [0x13])
    #expect(try await incoming.next() == ATTHandleValueNotification(handle: reply, value: [3, 2, 1]).bytes)
    await bearer.close()
  }

  @Test func deviceRebootDropsTheLinkAndReportsTheConnection() async throws {
    let disconnects = Recorder<Int>()
    let server = echoServer(disconnects: disconnects)
    let (client, link) = try await GATTFixtures.connect(server)
    let command = try await client.characteristic(Self.command)
    try await client.write([0xFF], to: command.valueHandle)  // answered, then the device drops the link
    await #expect(throws: LinkError.self) { _ = try await client.read(1) }
    await disconnects.wait(forCount: 1)
    #expect(disconnects.all == [link.connection.id])
    #expect(await link.connection.isEnded)
  }

  @Test func connectionsAreDistinctAndHoldTheirOwnCCCDs() async throws {
    let server = echoServer(disconnects: Recorder())
    let (a, linkA) = try await GATTFixtures.connect(server)
    let (b, linkB) = try await GATTFixtures.connect(server)
    #expect(linkA.connection.id != linkB.connection.id)
    let reply = try await a.characteristic(Self.reply)
    let stream = try await a.subscribe(to: reply)
    #expect(await linkA.connection.isSubscribed(Self.reply))
    #expect(await !linkB.connection.isSubscribed(Self.reply))
    #expect(await server.notifyAll(Self.reply, [7]) == 1)
    for await value in stream {
      #expect(value == [7])
      break
    }
    await a.close()
    await b.close()
  }
}
