import Testing

@testable import BeaconCore

/// Secondary services, include declarations and the Extended Properties descriptor in full discovery
/// (Core v5.4 Vol 3 Part G §3.1–§3.3.3.1, §4.4–§4.5, Part F §3.4.4), as recorded ATT transcripts.
///
/// The peer's database:
/// - 0x0001–0x0005 primary FF00: includes at 0x0002 (→ FF10, 0x0006–0x0009, 16-bit UUID in the value) and
///   0x0003 (→ the 128-bit service, 0x000A–0x000C, UUID left out), Serial Number 2A25 (read) at 0x0004/0x0005;
/// - 0x0006–0x0009 secondary FF10: First Name 2A8A (read, write, extended properties) at 0x0007/0x0008, its
///   Extended Properties descriptor 0x2900 at 0x0009 = 0x0001 (Reliable Write);
/// - 0x000A–0x000C secondary 12345678-9ABC-DEF0-1234-56789ABCDEF0: System ID 2A23 (read) at 0x000B/0x000C.
@Suite("GATT relationships", .timeLimit(.minutes(1)))
struct GATTRelationshipTranscriptTests {
  /// 12345678-9ABC-DEF0-1234-56789ABCDEF0 as ATT sends it: the 16 octets least significant first.
  static let vendorLE: [UInt8] = [
    0xF0, 0xDE, 0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12, 0xF0, 0xDE, 0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12,
  ]
  static let vendor = BluetoothUUID("12345678-9ABC-DEF0-1234-56789ABCDEF0")!

  static let script: [ScriptedBearer.Exchange] = [
    // → 10 0100 FFFF 0028: Read By Group Type «Primary Service» ← 11 06 | 0100 0500 00FF
    .init(
      request: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], answers: [[0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0xFF]]),
    // → 10 0600 FFFF 0028 ← 01 10 0600 0A: Attribute Not Found
    .init(request: [0x10, 0x06, 0x00, 0xFF, 0xFF, 0x00, 0x28], answers: [[0x01, 0x10, 0x06, 0x00, 0x0A]]),
    // → 10 0100 FFFF 0128: Read By Group Type «Secondary Service» ← 11 06 | 0600 0900 10FF
    //   (the 128-bit one has another value length, so it comes in the next response)
    .init(
      request: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x28], answers: [[0x11, 0x06, 0x06, 0x00, 0x09, 0x00, 0x10, 0xFF]]),
    // → 10 0A00 FFFF 0128 ← 11 14 | 0A00 0C00 + 16 UUID octets
    .init(
      request: [0x10, 0x0A, 0x00, 0xFF, 0xFF, 0x01, 0x28], answers: [[0x11, 0x14, 0x0A, 0x00, 0x0C, 0x00] + vendorLE]),
    // → 10 0D00 FFFF 0128 ← 01 10 0D00 0A
    .init(request: [0x10, 0x0D, 0x00, 0xFF, 0xFF, 0x01, 0x28], answers: [[0x01, 0x10, 0x0D, 0x00, 0x0A]]),
    // FF00: → 08 0100 0500 0328 ← 09 07 | 0400: 02 0500 252A (value 5 = the end: no further request)
    .init(
      request: [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28],
      answers: [[0x09, 0x07, 0x04, 0x00, 0x02, 0x05, 0x00, 0x25, 0x2A]]),
    // Its first characteristic is at 4, not 2: includes lie between. → 08 0100 0500 0228: Read By Type «Include»
    // ← 09 08 | 0200: 0600 0900 10FF (included service 6…9, 16-bit UUID FF10)
    .init(
      request: [0x08, 0x01, 0x00, 0x05, 0x00, 0x02, 0x28],
      answers: [[0x09, 0x08, 0x02, 0x00, 0x06, 0x00, 0x09, 0x00, 0x10, 0xFF]]),
    // → 08 0300 0500 0228 ← 09 06 | 0300: 0A00 0C00 (included service 10…12; a 128-bit UUID is left out)
    .init(
      request: [0x08, 0x03, 0x00, 0x05, 0x00, 0x02, 0x28], answers: [[0x09, 0x06, 0x03, 0x00, 0x0A, 0x00, 0x0C, 0x00]]),
    // → 0A 0A00: Read Request on the included service's declaration ← 0B + its 16 UUID octets (§4.5.1)
    .init(request: [0x0A, 0x0A, 0x00], answers: [[0x0B] + vendorLE]),
    // → 08 0400 0500 0228 ← 01 08 0400 0A: no more includes
    .init(request: [0x08, 0x04, 0x00, 0x05, 0x00, 0x02, 0x28], answers: [[0x01, 0x08, 0x04, 0x00, 0x0A]]),
    // FF10: → 08 0600 0900 0328 ← 09 07 | 0700: 8A 0800 8A2A (read, write, extended properties; value 8)
    .init(
      request: [0x08, 0x06, 0x00, 0x09, 0x00, 0x03, 0x28],
      answers: [[0x09, 0x07, 0x07, 0x00, 0x8A, 0x08, 0x00, 0x8A, 0x2A]]),
    // → 04 0900 0900: Find Information ← 05 01 | 0900 0029 (Characteristic Extended Properties)
    .init(request: [0x04, 0x09, 0x00, 0x09, 0x00], answers: [[0x05, 0x01, 0x09, 0x00, 0x00, 0x29]]),
    // → 0A 0900: read it ← 0B 0100: Reliable Write
    .init(request: [0x0A, 0x09, 0x00], answers: [[0x0B, 0x01, 0x00]]),
    // The 128-bit service: → 08 0A00 0C00 0328 ← 09 07 | 0B00: 02 0C00 232A
    .init(
      request: [0x08, 0x0A, 0x00, 0x0C, 0x00, 0x03, 0x28],
      answers: [[0x09, 0x07, 0x0B, 0x00, 0x02, 0x0C, 0x00, 0x23, 0x2A]]),
  ]

  @Test func fullDiscoveryFindsSecondaryServicesIncludesAndExtendedProperties() async throws {
    let bearer = ScriptedBearer(Self.script)
    let client = GATTClient(bearer: bearer)
    let db = try await client.discover()
    #expect(bearer.mismatches.isEmpty, "\(bearer.mismatches)")
    #expect(bearer.remaining == 0)
    #expect(db.services.map(\.uuid) == [BluetoothUUID(0xFF00), BluetoothUUID(0xFF10), Self.vendor])
    #expect(db.services.map(\.isPrimary) == [true, false, false])
    #expect(
      db.services[0].includes == [
        GATTInclude(handle: 2, startHandle: 6, endHandle: 9, uuid: BluetoothUUID(0xFF10)),
        GATTInclude(handle: 3, startHandle: 10, endHandle: 12, uuid: Self.vendor),
      ])
    let firstName = try #require(db.characteristic(BluetoothUUID(0x2A8A)))
    #expect(firstName.extendedProperties == .reliableWrite)
    #expect(db.characteristic(BluetoothUUID(0x2A25))?.extendedProperties == nil)
    // A characteristic of a secondary service is found by UUID like any other.
    #expect(db.characteristic(BluetoothUUID(0x2A23))?.valueHandle == 0x000C)
    #expect(await client.roundTrips == 14)
  }

  @Test func includeValuesCarryTheUUIDOnlyWhenItIs16Bit() {
    // Part G §3.2, Table 3.2: handle (2) | end group handle (2) | UUID (2, only for a 16-bit UUID).
    #expect(
      GATTInclude.value(startHandle: 6, endHandle: 9, uuid: BluetoothUUID(0xFF10)) == [
        0x06, 0x00, 0x09, 0x00, 0x10, 0xFF,
      ])
    #expect(GATTInclude.value(startHandle: 0x0A, endHandle: 0x0C, uuid: Self.vendor) == [0x0A, 0x00, 0x0C, 0x00])
  }

  @Test func extendedPropertiesDecodeTheTwoDefinedBits() {
    // Part G §3.3.3.1, Table 3.11: bit 0 Reliable Write, bit 1 Writable Auxiliaries.
    #expect(GATTExtendedProperties(descriptorValue: [0x03, 0x00]) == [.reliableWrite, .writableAuxiliaries])
    #expect(GATTExtendedProperties(descriptorValue: [0x02, 0x00])?.names == ["writable-auxiliaries"])
    #expect(GATTExtendedProperties(descriptorValue: [0x05, 0x00])?.names == ["reliable-write", "reserved 0x4"])
    #expect(GATTExtendedProperties(descriptorValue: [0x01]) == nil)
  }

  @Test func aServerWithoutSecondaryGroupingHasNone() async throws {
    let bearer = ScriptedBearer([
      // → 10 0100 FFFF 0128 ← 01 10 0100 10: Unsupported Group Type
      .init(request: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x28], answers: [[0x01, 0x10, 0x01, 0x00, 0x10]])
    ])
    let client = GATTClient(bearer: bearer)
    #expect(try await client.discoverSecondaryServices().isEmpty)
    #expect(bearer.mismatches.isEmpty)
  }
}
