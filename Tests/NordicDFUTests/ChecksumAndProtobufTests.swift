import Testing

@testable import NordicDFU

/// CRC-32 as the target computes it (docs/protocols/nordic-dfu.md §2.4) and the proto2 reader used for init packets (§1.3).
@Suite(.timeLimit(.minutes(2))) struct ChecksumAndProtobufTests {
  @Test func crc32MatchesTheStandardCheckValue() {
    // CRC-32/ISO-HDLC check value for "123456789" is 0xCBF43926 (what zlib.crc32 returns)
    #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    #expect(CRC32.checksum([]) == 0)
  }

  @Test func crc32ContinuesAcrossChunks() {
    let data = DFUFixtures.firmware(count: 1000)
    let whole = CRC32.checksum(data)
    #expect(CRC32.update(CRC32.checksum(data[0..<333]), with: data[333...]) == whole)
  }

  @Test func protobufReaderDecodesEveryWireType() throws {
    // 08 96 01: field 1 varint 150 | 12 02 AB CD: field 2 bytes AB CD | 1D 01 00 00 00: field 3 fixed32 1
    // 21 + 8 bytes: field 4 fixed64 2
    var r = ProtobufReader([0x08, 0x96, 0x01, 0x12, 0x02, 0xAB, 0xCD, 0x1D, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0, 0])
    #expect(try r.next()! == (1, .varint(150)))
    #expect(try r.next()! == (2, .bytes([0xAB, 0xCD])))
    #expect(try r.next()! == (3, .fixed32(1)))
    #expect(try r.next()! == (4, .fixed64(2)))
    #expect(try r.next() == nil)
  }

  @Test func protobufReaderRejectsTruncatedAndBadInput() {
    // length 5 but only 1 byte follows
    var a = ProtobufReader([0x12, 0x05, 0x00])
    #expect(throws: ProtobufError.truncated) { try a.next() }
    // varint that never ends
    var b = ProtobufReader([0x08] + [UInt8](repeating: 0xFF, count: 11))
    #expect(throws: ProtobufError.self) { try b.next() }
    // wire type 3 (start group) is not supported
    var c = ProtobufReader([0x0B])
    #expect(throws: ProtobufError.unsupportedWireType(3)) { try c.next() }
  }

  @Test func initCommandRoundTripsAndDecodesTheSpecExample() throws {
    // nrfutil's app.dat InitCommand (§5): 08 03 fw 3 | 10 34 hw 52 | 1A 01 00 sd_req [0] | 20 00 type APP |
    // 28 00 30 00 sd/bl 0 | 38 90 4E app_size 10000 | 42 24 (08 03 12 20 <32 B>) hash | 48 00 debug | 52 04 (08 01 12 00)
    let digest = [UInt8](repeating: 0x11, count: 32)
    let bytes: [UInt8] =
      [
        0x08, 0x03, 0x10, 0x34, 0x1A, 0x01, 0x00, 0x20, 0x00, 0x28, 0x00, 0x30, 0x00, 0x38, 0x90, 0x4E, 0x42, 0x24,
        0x08, 0x03, 0x12, 0x20,
      ] + digest + [0x48, 0x00, 0x52, 0x04, 0x08, 0x01, 0x12, 0x00]
    let c = try InitCommand(decoding: bytes)
    #expect(
      c.firmwareVersion == 3 && c.hardwareVersion == 52 && c.softDeviceRequirements == [0] && c.type == .application)
    #expect(c.applicationSize == 10000 && c.hash == ImageHash(type: 3, digest: digest) && c.isDebug == false)
    #expect(c.bootValidations == [BootValidation(type: 1, bytes: [])])
    #expect(c.serialized() == bytes)
    #expect(bytes.count == 62)
  }

  @Test func initPacketWithBothCommandsIsRefused() {
    // 0A 00: empty command | 12 00: empty signed command
    #expect(throws: InitPacketError.bothCommandAndSignedCommand) { try InitPacket(decoding: [0x0A, 0x00, 0x12, 0x00]) }
    #expect(throws: InitPacketError.missingInitCommand) { try InitPacket(decoding: [0x0A, 0x02, 0x08, 0x01]) }
  }
}
