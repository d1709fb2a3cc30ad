import Testing

@testable import BeaconCore

/// `ByteReader`, the one bounds-checked reader under the HCI, mgmt, ATT and KBeacon decoders: integers in
/// either octet order, every read past the end a typed error naming how much was needed where (and the
/// field, when the decoder names it), and the HCI and ATT specialisations' own errors.
@Suite(.timeLimit(.minutes(1))) struct ByteReaderTests {
  struct Short: Error, Equatable {
    var needed: Int
    var offset: Int
    var what: String
  }

  static func reader(_ bytes: [UInt8], _ order: ByteReader<Short>.Order) -> ByteReader<Short> {
    ByteReader(bytes, order: order) { Short(needed: $0, offset: $1, what: $2) }
  }

  @Test func integersComeInTheProtocolsOrder() throws {
    let bytes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]
    var little = Self.reader(bytes, .littleEndian)
    #expect(try little.u8() == 0x01)
    #expect(try little.u16() == 0x0302)
    #expect(try little.u32() == 0x0706_0504)
    #expect(little.remaining == 0)
    var big = Self.reader(bytes, .bigEndian)
    #expect(try big.u8() == 0x01)
    #expect(try big.u16() == 0x0203)
    #expect(try big.u32() == 0x0405_0607)
    var rest = Self.reader(bytes, .bigEndian)
    #expect(try rest.take(2) == [0x01, 0x02])
    #expect(rest.rest() == [0x03, 0x04, 0x05, 0x06, 0x07])
    #expect(rest.rest().isEmpty && rest.remaining == 0)
  }

  @Test func aReadPastTheEndIsTheDecodersErrorAndReadsNothing() {
    var reader = Self.reader([0xAA, 0xBB, 0xCC], .bigEndian)
    #expect(throws: Short(needed: 4, offset: 0, what: "utc")) { try reader.u32("utc") }
    #expect(reader.offset == 0, "a failed read moved the reader")
    #expect(throws: Short(needed: 5, offset: 0, what: "")) { try reader.take(5) }
    #expect(throws: Short(needed: -1, offset: 0, what: "")) { try reader.take(-1) }
    #expect(throws: Never.self) { _ = try reader.u16() }
    #expect(throws: Short(needed: 2, offset: 2, what: "seq")) { try reader.u16("seq") }
  }

  @Test func theHCIAndATTReadersNameWhatTheyDecode() {
    var hci = HCIWireReader([0x01, 0x02], context: "Device Found")
    #expect(throws: HCIDecodingError.truncated("Device Found", needed: 6, got: 2)) { try hci.address() }
    var att = ATTByteReader?.none
    #expect(throws: Never.self) { att = try ATTByteReader([0x0B, 0x01], expecting: .readResponse) }
    #expect(att?.opcode == 0x0B)
    #expect(throws: ATTDecodingError(.invalidLength, opcode: 0x0B, detail: "needs 2 more octet(s) at offset 1")) {
      _ = try att?.u16()
    }
  }
}
