import BeaconCore
import BlueZ
import Foundation
import Testing

@testable import Simulator

/// The real GATT client against the simulated GATT server over a real socketpair (Core v5.4 Vol 3
/// Part G §4 procedures; Part F §3.4 server behaviour).
@Suite(.timeLimit(.minutes(3))) struct GATTClientServerTests {
  @Test func discoversTenServicesExactly() async throws {
    let definitions = GATTFixtures.tenServices()
    let server = GATTServer(services: definitions)
    let (client, _) = try await GATTFixtures.connect(server)
    let db = try await client.discover()
    #expect(db.services.map(\.uuid) == definitions.map(\.uuid))
    // Every handle the client found is the one the server's table assigned.
    let table = server.table
    for (service, definition) in zip(db.services, definitions) {
      #expect(service.characteristics.map(\.uuid) == definition.characteristics.map(\.uuid))
      #expect(service.characteristics.map(\.properties) == definition.characteristics.map(\.properties))
      #expect(table.attribute(service.startHandle)?.type == GATTAttributeType.primaryService)
      for c in service.characteristics {
        #expect(table.valueHandle(of: c.uuid) == c.valueHandle)
        let expectsCCCD = !c.properties.isDisjoint(with: [.notify, .indicate])
        #expect((c.cccdHandle != nil) == expectsCCCD)
        if let cccd = c.cccdHandle { #expect(table.cccdHandle(forValue: c.valueHandle) == cccd) }
        let hasDescription = c.descriptors.contains { $0.uuid == GATTAttributeType.userDescription }
        #expect(hasDescription == (definition.characteristics.firstIndex { $0.uuid == c.uuid } == 1))
      }
    }
    #expect(db.services.last?.endHandle == table.lastHandle)
    // Values read back through the discovered handles.
    let c = try #require(db.characteristic(GATTFixtures.vendorUUID(171)))
    #expect(try await client.read(c.valueHandle) == [7, 1])
  }

  @Test func sixHundredOctetReadAtMTU23() async throws {
    let value = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let uuid = BluetoothUUID(0xFF01)
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF00),
        characteristics: [SimulatedCharacteristic(uuid: uuid, properties: [.read], value: value)])
    ])
    let (client, _) = try await GATTFixtures.connect(server)
    let handle = try #require(server.valueHandle(of: uuid))
    #expect(await client.mtu == 23)
    #expect(try await client.read(handle) == value)
    // One Read Request (22 octets) + 27 Read Blob Requests (26 × 22 + 6) = 28 round trips.
    #expect(await client.roundTrips == 28)
  }

  @Test func longWriteArrivesWholeOnce() async throws {
    let writes = Recorder<GATTWrite.Kind>()
    let values = Recorder<[UInt8]>()
    let uuid = BluetoothUUID(0xFF02)
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF00),
        characteristics: [
          SimulatedCharacteristic(uuid: uuid, properties: [.write]) { write in
            writes.append(write.kind)
            values.append(write.value)
          }
        ])
    ])
    let (client, _) = try await GATTFixtures.connect(server)
    #expect(try await client.exchangeMTU() == 247)
    let value = (0..<500).map { UInt8(truncatingIfNeeded: $0) }
    try await client.write(value, to: try #require(server.valueHandle(of: uuid)))
    #expect(values.all == [value])
    #expect(writes.all == [.long])
    // MTU exchange + ceil(500 / 242) = 3 Prepare Writes + 1 Execute Write.
    #expect(await client.roundTrips == 5)
  }

  @Test func mtuIsTheSmallerOfBothAsks() async throws {
    let server = GATTServer(services: GenericDeviceDatabase.kbeaconLike(name: "KBPro"))
    let (small, _) = try await GATTFixtures.connect(server, model: LinkModel(roundTripLatency: .zero, maxMTU: 100))
    #expect(try await small.exchangeMTU() == 100)
    let (large, _) = try await GATTFixtures.connect(server, model: LinkModel(roundTripLatency: .zero, maxMTU: 517))
    #expect(try await large.exchangeMTU() == 247)
  }

  @Test func thousandsOfNotificationsArriveInOrder() async throws {
    let server = GATTServer(services: GenericDeviceDatabase.kbeaconLike(name: "KBPro"))
    let (client, link) = try await GATTFixtures.connect(server)
    let notify = try await client.characteristic(BluetoothUUID(0xFEA2))
    let stream = try await client.subscribe(to: notify)
    let count = 5000
    Task {
      for i in 0..<count { await link.connection.notify(BluetoothUUID(0xFEA2), [UInt8(i >> 8), UInt8(i & 0xFF)]) }
    }
    var expected = 0
    for await value in stream {
      #expect(value == [UInt8(expected >> 8), UInt8(expected & 0xFF)])
      expected += 1
      if expected == count { break }
    }
    #expect(expected == count)
  }

  @Test func indicationWaitsForTheClientsConfirmation() async throws {
    let server = GATTServer(services: GenericDeviceDatabase.kbeaconLike(name: "KBPro"))
    let (client, link) = try await GATTFixtures.connect(server)
    let indicate = try await client.characteristic(BluetoothUUID(0xFEA3))
    #expect(try await link.connection.indicate(BluetoothUUID(0xFEA3), [9]) == false)  // not subscribed yet
    let stream = try await client.subscribe(to: indicate)
    #expect(await link.connection.isSubscribed(BluetoothUUID(0xFEA3), indications: true))
    for i in 1...3 { #expect(try await link.connection.indicate(BluetoothUUID(0xFEA3), [UInt8(i)])) }
    var got: [[UInt8]] = []
    for await value in stream {
      got.append(value)
      if got.count == 3 { break }
    }
    #expect(got == [[1], [2], [3]])
  }

  @Test func writesWithoutResponseAreNotLostUnderLoad() async throws {
    let values = Recorder<[UInt8]>()
    let uuid = BluetoothUUID(0xFF03)
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF00),
        characteristics: [
          SimulatedCharacteristic(uuid: uuid, properties: [.writeWithoutResponse]) { values.append($0.value) }
        ])
    ])
    let model = LinkModel(roundTripLatency: .zero, writesWithoutResponsePerEvent: 4)
    let (client, _) = try await GATTFixtures.connect(server, model: model)
    let handle = try #require(server.valueHandle(of: uuid))
    for i in 0..<2000 { try await client.writeWithoutResponse([UInt8(i >> 8), UInt8(i & 0xFF)], to: handle) }
    // A request afterwards is answered only after every earlier command was handled (one queue per link).
    await #expect(throws: ATTRequestError(code: .readNotPermitted, request: 0x0A, handle: handle)) {
      try await client.read(handle)
    }
    let expected: [[UInt8]] = (0..<2000).map { (i: Int) -> [UInt8] in [UInt8(i >> 8), UInt8(i & 0xFF)] }
    #expect(values.all == expected)
    #expect(await client.commandsSent == 2000)
  }

  @Test func writesWithoutResponseAreBoundedInFlight() async throws {
    let handled = Recorder<Int>()
    let uuid = BluetoothUUID(0xFF04)
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF00),
        characteristics: [
          SimulatedCharacteristic(uuid: uuid, properties: [.writeWithoutResponse]) { _ in handled.append(1) }
        ])
    ])
    // 4 Write Commands per 1 ms connection event: 200 commands take ~50 ms of simulated air time.
    let model = LinkModel(roundTripLatency: .milliseconds(1), writesWithoutResponsePerEvent: 4)
    let (client, _) = try await GATTFixtures.connect(server, model: model)
    let handle = try #require(server.valueHandle(of: uuid))
    var worstBacklog = 0
    for i in 1...200 {
      try await client.writeWithoutResponse([UInt8(i & 0xFF)], to: handle)
      worstBacklog = max(worstBacklog, i - handled.all.count)
    }
    // The sender is paced by the link: it is never more than a few connection events ahead of the device
    // (the default socket buffer alone would let all 200 through at once).
    #expect(worstBacklog <= 40, "backlog reached \(worstBacklog)")
    await client.close()
  }
}
