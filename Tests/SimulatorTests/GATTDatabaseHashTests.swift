import BeaconCore
import Foundation
import Testing

@testable import Simulator

/// The simulator's Database Hash (Core v5.4 Vol 3 Part G §7.3) byte for byte: AES-CMAC against RFC 4493's
/// vectors, the specification's own example database (Part G Appendix B), the characteristic read over a
/// link, and a relaid table (new firmware) changing the hash and indicating Service Changed.
@Suite(.timeLimit(.minutes(2))) struct GATTDatabaseHashTests {
  static func hex(_ text: String) -> [UInt8] { Hex.decode(text.filter { !$0.isWhitespace })! }

  /// RFC 4493 §4, examples 1–4.
  @Test func aesCMACMatchesRFC4493() {
    let key = Self.hex("2b7e1516 28aed2a6 abf71588 09cf4f3c")
    let m = Self.hex(
      "6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51 30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710"
    )
    #expect(AESCMAC.mac(key: key, []) == Self.hex("bb1d6929 e9593728 7fa37d12 9b756746"))
    #expect(AESCMAC.mac(key: key, Array(m[0..<16])) == Self.hex("070a16b4 6b4d4144 f79bdd9d d04a287c"))
    #expect(AESCMAC.mac(key: key, Array(m[0..<40])) == Self.hex("dfa66747 de9ae630 30ca3261 1497c827"))
    #expect(AESCMAC.mac(key: key, m) == Self.hex("51f0bebf 7e3b9d92 fc497417 79363cfe"))
  }

  /// The database of Part G Appendix B: GAP, GATT (Service Changed, Client Supported Features, Database
  /// Hash), Glucose including a secondary Battery service, an Extended Properties descriptor.
  static func appendixB() -> [SimulatedService] {
    [
      SimulatedService(
        uuid: BluetoothUUID(0x1800),
        characteristics: [
          SimulatedCharacteristic(uuid: BluetoothUUID(0x2A00), properties: [.read, .write]),
          SimulatedCharacteristic(uuid: BluetoothUUID(0x2A01), properties: [.read]),
        ]),
      SimulatedService(
        uuid: BluetoothUUID(0x1801),
        characteristics: [
          SimulatedCharacteristic(uuid: GATTCaching.serviceChanged, properties: [.indicate]),
          SimulatedCharacteristic(uuid: GATTCaching.clientSupportedFeatures, properties: [.read, .write]),
          SimulatedCharacteristic(uuid: GATTCaching.databaseHash, properties: [.read]),
        ]),
      SimulatedService(
        uuid: BluetoothUUID(0x1808), includes: [BluetoothUUID(0x180F)],
        characteristics: [
          SimulatedCharacteristic(
            uuid: BluetoothUUID(0x2A18), properties: [.read, .indicate, .extendedProperties],
            descriptors: [SimulatedDescriptor(uuid: GATTAttributeType.extendedProperties, value: [0x00, 0x00])])
        ]),
      SimulatedService(
        uuid: BluetoothUUID(0x180F), isPrimary: false,
        characteristics: [SimulatedCharacteristic(uuid: BluetoothUUID(0x2A19), properties: [.read])]),
    ]
  }

  @Test func theSpecificationsExampleHashesToItsValue() {
    let table = GATTAttributeTable(services: Self.appendixB())
    #expect(
      GATTDatabaseHash.message(table)
        == Self.hex(
          "010000280018020003280a0300002a04000328020500012a06000028011807000328200800052a090002290a0003280a0b00292b0c000328020d002a2b0e00002808180f000228140016000f1810000328a21100182a12000229130000290000140001280f1815000328021600192a"
        ))
    #expect(
      AESCMAC.mac(key: [UInt8](repeating: 0, count: 16), GATTDatabaseHash.message(table))
        == Self.hex("F1CA2D48ECF58BAC8A8830BBB9FBA990"))
    // On the air little-endian (Zephyr's order, see `GATTDatabaseHash`).
    #expect(GATTDatabaseHash.value(of: table) == Array(Self.hex("F1CA2D48ECF58BAC8A8830BBB9FBA990").reversed()))
  }

  @Test func theHashCharacteristicReadsTheTablesHashAndFollowsARelayout() async throws {
    let server = GATTServer(services: Self.appendixB())
    let (client, _) = try await GATTFixtures.connect(server)
    _ = try await client.exchangeMTU()
    let before = try await client.readDatabaseHash()
    #expect(before == Array(Self.hex("F1CA2D48ECF58BAC8A8830BBB9FBA990").reversed()))
    // The client enables Service Changed indications; the table is then laid out anew.
    let db = try await client.discover()
    let changed = try #require(db.characteristic(GATTCaching.serviceChanged))
    let indications = await client.notifications(for: changed.valueHandle)
    try await client.configure(changed, notify: false, indicate: true)
    await server.replaceServices(
      Self.appendixB() + [
        SimulatedService(
          uuid: BluetoothUUID(0xFFE0),
          characteristics: [SimulatedCharacteristic(uuid: BluetoothUUID(0xFFE1), properties: [.read])])
      ])
    var iterator = indications.makeAsyncIterator()
    #expect(await iterator.next() == [0x01, 0x00, 0xFF, 0xFF])
    let after = try await client.readDatabaseHash()
    #expect(after != nil && after != before)
    #expect(after == GATTDatabaseHash.value(of: server.table))
  }

  @Test func aServerWithoutTheCharacteristicHasNoHash() async throws {
    let server = GATTServer(services: [Self.appendixB()[0]])
    let (client, _) = try await GATTFixtures.connect(server)
    #expect(try await client.readDatabaseHash() == nil)
  }
}
