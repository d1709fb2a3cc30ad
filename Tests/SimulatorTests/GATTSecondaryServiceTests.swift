import BeaconCore
import Testing

@testable import Simulator

/// The simulated GATT server lays out secondary services and include declarations as Core v5.4 Vol 3
/// Part G §3.1–§3.2 say, and the real client finds them (§4.4–§4.5) over a real socketpair.
@Suite("Secondary services and includes", .timeLimit(.minutes(1)))
struct GATTSecondaryServiceTests {
  static let vendor = BluetoothUUID("12345678-9ABC-DEF0-1234-56789ABCDEF0")!

  /// 0x0001–0x0006 primary User Data 181C: includes FF10 and the 128-bit service, First Name 2A8A with an
  /// Extended Properties descriptor (Writable Auxiliaries); 0x0007–0x0009 secondary FF10 with Serial Number
  /// 2A25; 0x000A–0x000C secondary 128-bit with System ID 2A23.
  static func services() -> [SimulatedService] {
    [
      SimulatedService(
        uuid: BluetoothUUID(0x181C), includes: [BluetoothUUID(0xFF10), vendor],
        characteristics: [
          SimulatedCharacteristic(
            uuid: BluetoothUUID(0x2A8A), properties: [.read, .write, .extendedProperties], value: Array("Ada".utf8),
            descriptors: [SimulatedDescriptor(uuid: GATTAttributeType.extendedProperties, value: [0x02, 0x00])])
        ]),
      SimulatedService(
        uuid: BluetoothUUID(0xFF10), isPrimary: false,
        characteristics: [
          SimulatedCharacteristic(uuid: BluetoothUUID(0x2A25), properties: [.read], value: Array("SN-1".utf8))
        ]),
      SimulatedService(
        uuid: vendor, isPrimary: false,
        characteristics: [
          SimulatedCharacteristic(uuid: BluetoothUUID(0x2A23), properties: [.read], value: [1, 2, 3, 4, 5, 6, 7, 8])
        ]),
    ]
  }

  @Test func includeDeclarationsFollowTheServiceDeclaration() throws {
    let table = GATTAttributeTable(services: Self.services())
    #expect(
      table.attributes.map(\.type) == [
        GATTAttributeType.primaryService, GATTAttributeType.include, GATTAttributeType.include,
        GATTAttributeType.characteristic, BluetoothUUID(0x2A8A), GATTAttributeType.extendedProperties,
        GATTAttributeType.secondaryService, GATTAttributeType.characteristic, BluetoothUUID(0x2A25),
        GATTAttributeType.secondaryService, GATTAttributeType.characteristic, BluetoothUUID(0x2A23),
      ])
    // An include naming a service the server does not have is left out.
    let lone = GATTAttributeTable(services: [
      SimulatedService(uuid: BluetoothUUID(0x1800), includes: [BluetoothUUID(0xFFFF)], characteristics: [])
    ])
    #expect(lone.attributes.count == 1)
  }

  @Test func theServerAnswersIncludeReadsPerSpec() async throws {
    let server = GATTServer(services: Self.services())
    let (client, _) = try await GATTFixtures.connect(server)
    // → 08 0100 0600 0228 ← 09 08 | 0200: 0700 0900 10FF — the 16-bit one alone (the next has another length)
    let first = try await client.transact(
      ATTReadByTypeRequest(startHandle: 1, endHandle: 6, type: GATTAttributeType.include))
    #expect(first.bytes == [0x09, 0x08, 0x02, 0x00, 0x07, 0x00, 0x09, 0x00, 0x10, 0xFF])
    // → 08 0300 0600 0228 ← 09 06 | 0300: 0A00 0C00 — no UUID for a 128-bit service
    let second = try await client.transact(
      ATTReadByTypeRequest(startHandle: 3, endHandle: 6, type: GATTAttributeType.include))
    #expect(second.bytes == [0x09, 0x06, 0x03, 0x00, 0x0A, 0x00, 0x0C, 0x00])
    // → 10 0100 FFFF 0128 ← 11 06 | 0700 0900 10FF
    let secondary = try await client.transact(
      ATTReadByGroupTypeRequest(startHandle: 1, endHandle: 0xFFFF, groupType: GATTAttributeType.secondaryService))
    #expect(secondary.bytes == [0x11, 0x06, 0x07, 0x00, 0x09, 0x00, 0x10, 0xFF])
    await client.close()
  }

  @Test func theClientDiscoversAndReadsInsideSecondaryServices() async throws {
    let server = GATTServer(services: Self.services())
    let (client, _) = try await GATTFixtures.connect(server)
    let db = try await client.discover()
    #expect(db.services.map(\.uuid) == [BluetoothUUID(0x181C), BluetoothUUID(0xFF10), Self.vendor])
    #expect(db.services.map(\.isPrimary) == [true, false, false])
    #expect(
      db.services[0].includes == [
        GATTInclude(handle: 2, startHandle: 7, endHandle: 9, uuid: BluetoothUUID(0xFF10)),
        GATTInclude(handle: 3, startHandle: 10, endHandle: 12, uuid: Self.vendor),
      ])
    #expect(db.characteristic(BluetoothUUID(0x2A8A))?.extendedProperties == .writableAuxiliaries)
    let serial = try await client.characteristic(BluetoothUUID(0x2A25))
    #expect(try await client.read(serial.valueHandle) == Array("SN-1".utf8))
    await client.close()
  }
}
