import Testing

@testable import BeaconCore

/// Byte vectors for every ATT PDU (Core v5.4 Vol 3 Part F §3.4), each decoded field by field in its
/// comment. Each test decodes the vector through `ATTPDU`, checks the fields, and re-encodes it.
@Suite(.timeLimit(.minutes(1))) struct ATTPDUVectorTests {
  /// Decodes through the enum and checks that encoding gives the same bytes back.
  func roundTrip(_ bytes: [UInt8]) throws -> ATTPDU {
    let pdu = try ATTPDU(bytes)
    #expect(pdu.bytes == bytes)
    return pdu
  }

  @Test func errorResponse() throws {
    // 01 opcode Error Response | 0A request opcode = Read Request | 03 00 handle 0x0003 | 02 Read Not Permitted
    let pdu = try roundTrip([0x01, 0x0A, 0x03, 0x00, 0x02])
    #expect(pdu == .errorResponse(ATTErrorResponse(request: .readRequest, handle: 0x0003, error: .readNotPermitted)))
  }

  @Test func exchangeMTU() throws {
    // 02 Exchange MTU Request | F7 00 Client Rx MTU = 247
    #expect(try roundTrip([0x02, 0xF7, 0x00]) == .exchangeMTURequest(.init(clientRxMTU: 247)))
    // 03 Exchange MTU Response | 17 00 Server Rx MTU = 23
    #expect(try roundTrip([0x03, 0x17, 0x00]) == .exchangeMTUResponse(.init(serverRxMTU: 23)))
  }

  @Test func findInformation() throws {
    // 04 Find Information Request | 04 00 start 0x0004 | FF FF end 0xFFFF
    #expect(
      try roundTrip([0x04, 0x04, 0x00, 0xFF, 0xFF]) == .findInformationRequest(.init(startHandle: 4, endHandle: 0xFFFF))
    )
    // 05 Find Information Response | 01 format 16-bit | 05 00 handle 5, 02 29 UUID 0x2902 | 06 00 handle 6, 01 29 UUID 0x2901
    let short = try roundTrip([0x05, 0x01, 0x05, 0x00, 0x02, 0x29, 0x06, 0x00, 0x01, 0x29])
    #expect(
      short
        == .findInformationResponse(
          .init(entries: [.init(handle: 5, type: BluetoothUUID(0x2902)), .init(handle: 6, type: BluetoothUUID(0x2901))])
        ))
    // 05 | 02 format 128-bit | 10 00 handle 0x0010 | 16 octets LE of 8EC90001-F315-4F60-9FB8-838830DAEA50
    let uuid = BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50")!
    let long = try roundTrip([0x05, 0x02, 0x10, 0x00] + uuid.bytes.reversed())
    #expect(long == .findInformationResponse(.init(entries: [.init(handle: 0x10, type: uuid)])))
  }

  @Test func findByTypeValue() throws {
    // 06 Find By Type Value Request | 01 00 start 1 | FF FF end | 00 28 type 0x2800 | A0 FE value = UUID 0xFEA0 LE
    let request = try roundTrip([0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0xA0, 0xFE])
    #expect(
      request == .findByTypeValueRequest(.init(startHandle: 1, endHandle: 0xFFFF, type: 0x2800, value: [0xA0, 0xFE])))
    // 07 Find By Type Value Response | 10 00 found 0x0010 | 1A 00 group end 0x001A
    #expect(
      try roundTrip([0x07, 0x10, 0x00, 0x1A, 0x00])
        == .findByTypeValueResponse(.init(ranges: [.init(foundHandle: 0x10, groupEndHandle: 0x1A)])))
  }

  @Test func readByType() throws {
    // 08 Read By Type Request | 01 00 start 1 | 0B 00 end 0x000B | 03 28 type 0x2803 (characteristic)
    let request = try roundTrip([0x08, 0x01, 0x00, 0x0B, 0x00, 0x03, 0x28])
    #expect(request == .readByTypeRequest(.init(startHandle: 1, endHandle: 0x0B, type: BluetoothUUID(0x2803))))
    // 09 Read By Type Response | 07 length (2 handle + 5 value) |
    //   02 00 handle 2, value: 02 props read, 03 00 value handle 3, 00 2A UUID 0x2A00 |
    //   04 00 handle 4, value: 02 props read, 05 00 value handle 5, 01 2A UUID 0x2A01
    let response = try roundTrip([
      0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x04, 0x00, 0x02, 0x05, 0x00, 0x01, 0x2A,
    ])
    #expect(
      response
        == .readByTypeResponse(
          .init(entries: [
            .init(handle: 2, value: [0x02, 0x03, 0x00, 0x00, 0x2A]),
            .init(handle: 4, value: [0x02, 0x05, 0x00, 0x01, 0x2A]),
          ])))
  }

  @Test func readByGroupType() throws {
    // 10 Read By Group Type Request | 01 00 start 1 | FF FF end | 00 28 group type 0x2800 (primary service)
    let request = try roundTrip([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])
    #expect(
      request == .readByGroupTypeRequest(.init(startHandle: 1, endHandle: 0xFFFF, groupType: BluetoothUUID(0x2800))))
    // 11 Read By Group Type Response | 06 length (2 + 2 + 2) | 01 00 handle 1, 05 00 end 5, 00 18 UUID 0x1800 |
    //   06 00 handle 6, 09 00 end 9, 01 18 UUID 0x1801
    let response = try roundTrip([0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18])
    #expect(
      response
        == .readByGroupTypeResponse(
          .init(entries: [
            .init(handle: 1, endGroupHandle: 5, value: [0x00, 0x18]),
            .init(handle: 6, endGroupHandle: 9, value: [0x01, 0x18]),
          ])))
  }

  @Test func readAndReadBlob() throws {
    // 0A Read Request | 03 00 handle 3
    #expect(try roundTrip([0x0A, 0x03, 0x00]) == .readRequest(.init(handle: 3)))
    // 0B Read Response | 4B 42 "KB"
    #expect(try roundTrip([0x0B, 0x4B, 0x42]) == .readResponse(.init(value: [0x4B, 0x42])))
    // 0C Read Blob Request | 03 00 handle 3 | 16 00 offset 22
    #expect(try roundTrip([0x0C, 0x03, 0x00, 0x16, 0x00]) == .readBlobRequest(.init(handle: 3, offset: 22)))
    // 0D Read Blob Response | 50 part "P"
    #expect(try roundTrip([0x0D, 0x50]) == .readBlobResponse(.init(partValue: [0x50])))
    // 0B alone: Read Response with an empty value is valid
    #expect(try roundTrip([0x0B]) == .readResponse(.init(value: [])))
  }

  @Test func writes() throws {
    // 12 Write Request | 0F 00 handle 0x000F | 01 00 value (CCCD: notifications on)
    #expect(try roundTrip([0x12, 0x0F, 0x00, 0x01, 0x00]) == .writeRequest(.init(handle: 0x0F, value: [0x01, 0x00])))
    // 13 Write Response
    #expect(try roundTrip([0x13]) == .writeResponse(.init()))
    // 52 Write Command | 0E 00 handle 0x000E | AA BB value
    #expect(try roundTrip([0x52, 0x0E, 0x00, 0xAA, 0xBB]) == .writeCommand(.init(handle: 0x0E, value: [0xAA, 0xBB])))
  }

  @Test func preparedWrites() throws {
    // 16 Prepare Write Request | 0E 00 handle 14 | 12 00 offset 18 | 01 02 03 part
    #expect(
      try roundTrip([0x16, 0x0E, 0x00, 0x12, 0x00, 0x01, 0x02, 0x03])
        == .prepareWriteRequest(.init(handle: 14, offset: 18, partValue: [1, 2, 3])))
    // 17 Prepare Write Response | same fields echoed
    #expect(
      try roundTrip([0x17, 0x0E, 0x00, 0x12, 0x00, 0x01, 0x02, 0x03])
        == .prepareWriteResponse(.init(handle: 14, offset: 18, partValue: [1, 2, 3])))
    // 18 Execute Write Request | 01 flags = write all
    #expect(try roundTrip([0x18, 0x01]) == .executeWriteRequest(.init(flags: .write)))
    // 18 | 00 flags = cancel all
    #expect(try roundTrip([0x18, 0x00]) == .executeWriteRequest(.init(flags: .cancel)))
    // 19 Execute Write Response
    #expect(try roundTrip([0x19]) == .executeWriteResponse(.init()))
  }

  @Test func handleValues() throws {
    // 1B Handle Value Notification | 10 00 handle 0x0010 | 07 08 value
    #expect(
      try roundTrip([0x1B, 0x10, 0x00, 0x07, 0x08]) == .handleValueNotification(.init(handle: 0x10, value: [7, 8])))
    // 1D Handle Value Indication | 08 00 handle 8 | 01 00 FF FF value (Service Changed 0x0001…0xFFFF)
    #expect(
      try roundTrip([0x1D, 0x08, 0x00, 0x01, 0x00, 0xFF, 0xFF])
        == .handleValueIndication(.init(handle: 8, value: [1, 0, 0xFF, 0xFF])))
    // 1E Handle Value Confirmation
    #expect(try roundTrip([0x1E]) == .handleValueConfirmation(.init()))
  }

  @Test func a128BitTypeInReadByTypeTravelsLittleEndian() throws {
    // 08 | 01 00 | FF FF | 50 EA DA 30 88 83 B8 9F 60 4F 15 F3 01 00 C9 8E = 8EC90001-F315-4F60-9FB8-838830DAEA50 LE
    let bytes: [UInt8] = [
      0x08, 0x01, 0x00, 0xFF, 0xFF, 0x50, 0xEA, 0xDA, 0x30, 0x88, 0x83, 0xB8, 0x9F, 0x60, 0x4F, 0x15, 0xF3, 0x01, 0x00,
      0xC9, 0x8E,
    ]
    let pdu = try roundTrip(bytes)
    #expect(
      pdu
        == .readByTypeRequest(
          .init(startHandle: 1, endHandle: 0xFFFF, type: BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50")!)))
  }
}
