import BeaconCore
import BlueZ
import Testing

@testable import Simulator

/// Error Responses of the simulated server (Core v5.4 Vol 3 Part F §3.4.1.1 and each request's section),
/// seen through the real client and, for PDUs the client never sends, as raw bytes on the bearer.
@Suite(.timeLimit(.minutes(3))) struct GATTServerErrorTests {
  static let readOnly = BluetoothUUID(0xFF11)
  static let writeOnly = BluetoothUUID(0xFF12)
  static let controlPoint = BluetoothUUID(0xFF13)
  static let rejecting = BluetoothUUID(0xFF14)

  func server() -> GATTServer {
    GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF10),
        characteristics: [
          SimulatedCharacteristic(uuid: Self.readOnly, properties: [.read, .notify], value: Array("short".utf8)),
          SimulatedCharacteristic(uuid: Self.writeOnly, properties: [.write]),
          SimulatedCharacteristic(
            uuid: Self.controlPoint, properties: [.write, .notify], requiresSubscriptionForWrites: true),
          SimulatedCharacteristic(uuid: Self.rejecting, properties: [.write]) { _ in throw ATTErrorCode(0x81) },
        ])
    ])
  }

  func expectError(_ code: ATTErrorCode, _ request: ATTOpcode, _ handle: UInt16, _ body: () async throws -> Void) async
  {
    await #expect(throws: ATTRequestError(code: code, request: request.rawValue, handle: handle)) { try await body() }
  }

  @Test func permissionsAndHandles() async throws {
    let server = server()
    let (client, _) = try await GATTFixtures.connect(server)
    let readOnly = try #require(server.valueHandle(of: Self.readOnly))
    let writeOnly = try #require(server.valueHandle(of: Self.writeOnly))
    await expectError(.readNotPermitted, .readRequest, writeOnly) { _ = try await client.read(writeOnly) }
    await expectError(.writeNotPermitted, .writeRequest, readOnly) { try await client.write([1], to: readOnly) }
    await expectError(.invalidHandle, .readRequest, 0x0200) { _ = try await client.read(0x0200) }
    await expectError(.invalidHandle, .readRequest, 0x0000) { _ = try await client.read(0x0000) }
    // A service declaration cannot be written.
    await expectError(.writeNotPermitted, .writeRequest, 1) { try await client.write([1], to: 1) }
    // A device handler's own error code travels unchanged.
    let rejecting = try #require(server.valueHandle(of: Self.rejecting))
    await expectError(ATTErrorCode(0x81), .writeRequest, rejecting) { try await client.write([1], to: rejecting) }
    // Write Command to a read-only value: silently ignored, and the link stays up.
    try await client.writeWithoutResponse([9], to: readOnly)
    #expect(try await client.read(readOnly) == Array("short".utf8))
  }

  @Test func offsetsAndLongReads() async throws {
    let server = server()
    let (client, _) = try await GATTFixtures.connect(server)
    let readOnly = try #require(server.valueHandle(of: Self.readOnly))
    // "short" is 5 octets: offset 6 is past the end.
    await expectError(.invalidOffset, .readBlobRequest, readOnly) {
      _ = try await client.transact(ATTReadBlobRequest(handle: readOnly, offset: 6))
    }
    // Offset 2 of a value that fits one Read Response: Attribute Not Long.
    await expectError(.attributeNotLong, .readBlobRequest, readOnly) {
      _ = try await client.transact(ATTReadBlobRequest(handle: readOnly, offset: 2))
    }
    // A prepared write starting past what was built: Invalid Offset at execute, on that handle.
    let writeOnly = try #require(server.valueHandle(of: Self.writeOnly))
    _ = try await client.transact(ATTPrepareWriteRequest(handle: writeOnly, offset: 4, partValue: [1]))
    await expectError(.invalidOffset, .executeWriteRequest, writeOnly) {
      _ = try await client.transact(ATTExecuteWriteRequest(flags: .write))
    }
    // Prepare Write on a read-only value is refused at once.
    await expectError(.writeNotPermitted, .prepareWriteRequest, readOnly) {
      _ = try await client.transact(ATTPrepareWriteRequest(handle: readOnly, offset: 0, partValue: [1]))
    }
  }

  @Test func discoveryErrors() async throws {
    let (client, _) = try await GATTFixtures.connect(server())
    await expectError(.invalidHandle, .readByGroupTypeRequest, 5) {
      _ = try await client.transact(
        ATTReadByGroupTypeRequest(startHandle: 5, endHandle: 4, groupType: GATTAttributeType.primaryService))
    }
    await expectError(.unsupportedGroupType, .readByGroupTypeRequest, 1) {
      _ = try await client.transact(
        ATTReadByGroupTypeRequest(startHandle: 1, endHandle: 0xFFFF, groupType: BluetoothUUID(0x2803)))
    }
    await expectError(.attributeNotFound, .findInformationRequest, 0x0100) {
      _ = try await client.transact(ATTFindInformationRequest(startHandle: 0x0100, endHandle: 0xFFFF))
    }
    await expectError(.invalidHandle, .findInformationRequest, 0) {
      _ = try await client.transact(ATTFindInformationRequest(startHandle: 0, endHandle: 0xFFFF))
    }
    // Read By Type whose first match (the write-only value, handle 6) cannot be read returns that error.
    let writeOnlyValue = BluetoothUUID(0xFF12)
    await expectError(.readNotPermitted, .readByTypeRequest, 6) {
      _ = try await client.transact(ATTReadByTypeRequest(startHandle: 1, endHandle: 0xFFFF, type: writeOnlyValue))
    }
    // Discover Primary Service by UUID finds nothing for an absent UUID: an empty list, not an error.
    #expect(try await client.discoverPrimaryServices(BluetoothUUID(0x180F)).isEmpty)
    #expect(try await client.discoverPrimaryServices(BluetoothUUID(0xFF10)).map(\.startHandle) == [1])
  }

  @Test func cccdRules() async throws {
    let server = server()
    let (client, _) = try await GATTFixtures.connect(server)
    let db = try await client.discover()
    let notifyOnly = try #require(db.characteristic(Self.readOnly))
    let cccd = try #require(notifyOnly.cccdHandle)
    // Indications on a notify-only characteristic: CCCD Improperly Configured.
    await expectError(.cccdImproperlyConfigured, .writeRequest, cccd) {
      try await client.write([0x02, 0x00], to: cccd)
    }
    // One octet where the CCCD takes two.
    await expectError(.invalidAttributeValueLength, .writeRequest, cccd) { try await client.write([0x01], to: cccd) }
    // The control point refuses writes until this client subscribes, then takes them.
    let control = try #require(db.characteristic(Self.controlPoint))
    await expectError(.cccdImproperlyConfigured, .writeRequest, control.valueHandle) {
      try await client.write([1], to: control.valueHandle)
    }
    _ = try await client.subscribe(to: control)
    try await client.write([1], to: control.valueHandle)
    // Unsubscribing makes the control point refuse writes again.
    try await client.unsubscribe(from: control)
    await expectError(.cccdImproperlyConfigured, .writeRequest, control.valueHandle) {
      try await client.write([1], to: control.valueHandle)
    }
    _ = try await client.subscribe(to: control)
    #expect(try await client.read(cccd) == [0x00, 0x00])
    #expect(try await client.read(try #require(control.cccdHandle)) == [0x01, 0x00])
  }

  @Test func rawPDUsTheClientNeverSends() async throws {
    let (bearer, _) = try await SimulatedLink.open(to: server(), device: GATTFixtures.device)
    var answers = bearer.incoming.makeAsyncIterator()
    // → 0E 0100 0200: Read Multiple (not supported) ← 01 0E 0000 06 Request Not Supported
    try await bearer.send([0x0E, 0x01, 0x00, 0x02, 0x00])
    #expect(try await answers.next() == [0x01, 0x0E, 0x00, 0x00, 0x06])
    // → 0A 01: Read Request one octet short ← 01 0A 0000 04 Invalid PDU
    try await bearer.send([0x0A, 0x01])
    #expect(try await answers.next() == [0x01, 0x0A, 0x00, 0x00, 0x04])
    // → 30: an unknown opcode without the Command flag ← 01 30 0000 06
    try await bearer.send([0x30])
    #expect(try await answers.next() == [0x01, 0x30, 0x00, 0x00, 0x06])
    // → 7F 00: an unknown command (bit 6 set): ignored; the next request is answered normally.
    try await bearer.send([0x7F, 0x00])
    // → 02 1700: Exchange MTU 23 ← 03 F700 (device max 247)
    try await bearer.send([0x02, 0x17, 0x00])
    #expect(try await answers.next() == [0x03, 0xF7, 0x00])
    await bearer.close()
  }
}
