import Testing

@testable import BeaconCore

/// AD structure parsing (Core Vol 3 Part C §11) including malformed input.
@Suite(.timeLimit(.minutes(1))) struct AdvertisingDataTests {
  @Test func parsesEveryInterpretedADType() throws {
    let bytes = Hex.decode(
      // 02 01 06            flags = 0x06
      "020106"
        // 04 08 4B 42 50      shortened local name "KBP"
        + "04084B4250"
        // 05 09 4B 42 50 72   complete local name "KBPr"
        + "05094B425072"
        // 05 02 AA FE 80 20   incomplete 16-bit UUIDs FEAA, 2080
        + "0502AAFE8020"
        // 03 03 AA FE         complete 16-bit UUIDs FEAA
        + "0303AAFE"
        // 05 05 78 56 34 12   complete 32-bit UUIDs 0x12345678
        + "050578563412"
        // 11 07 <16 bytes LE> complete 128-bit UUID E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 (reversed on air)
        + "1107E09610A7F5D060B0D248FBDFB56DC5E2"
        // 04 16 80 20 64      service data 16-bit 0x2080, data 64
        + "0416802064"
        // 06 20 78 56 34 12 01  service data 32-bit 0x12345678, data 01
        + "06207856341201"
        // 12 21 <16> 02       service data 128-bit, data 02
        + "1221E09610A7F5D060B0D248FBDFB56DC5E202"
        // 04 FF 53 0A 22      manufacturer 0x0A53 (KKM), data 22
        + "04FF530A22"
        // 02 0A F4            tx power level −12 dBm
        + "020AF4"
        // 03 2A 01 02         unknown AD type 0x2A (mesh message), kept
        + "032A0102")!
    let ad = AdvertisingData(bytes)
    let e = ad.elements
    #expect(e.count == 13)
    #expect(e[0] == .flags(0x06))
    #expect(e[1] == .localName("KBP", complete: false))
    #expect(e[2] == .localName("KBPr", complete: true))
    #expect(ad.localName == "KBPr")
    guard case .serviceUUIDs(let incomplete) = e[3], case .serviceUUIDs(let complete16) = e[4],
      case .serviceUUIDs(let list32) = e[5], case .serviceUUIDs(let list128) = e[6]
    else {
      Issue.record("UUID lists not parsed: \(e)")
      return
    }
    #expect(!incomplete.complete && incomplete.uuids == [BluetoothUUID(0xFEAA), BluetoothUUID(0x2080)])
    #expect(complete16.complete && complete16.contains16(0xFEAA) && !complete16.contains16(0x2080))
    #expect(list32.uuids == [BluetoothUUID(uint32: 0x1234_5678)])
    #expect(list128.uuids.map(\.description) == ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"])
    guard case .serviceData(let sd16) = e[7], case .serviceData(let sd32) = e[8], case .serviceData(let sd128) = e[9]
    else {
      Issue.record("service data not parsed")
      return
    }
    #expect(sd16.uuid16 == 0x2080 && sd16.payload.array == [0x64])
    #expect(sd32.uuid == BluetoothUUID(uint32: 0x1234_5678) && sd32.payload.array == [0x01] && sd32.uuid16 == nil)
    #expect(sd128.uuid.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0" && sd128.payload.array == [0x02])
    #expect(e[10] == .manufacturerData(companyID: 0x0A53, payload: RawBytes([0x22])))
    #expect(e[11] == .txPowerLevel(-12))
    #expect(ad.txPowerLevel == -12 && ad.flags == 0x06)
    #expect(e[12] == .unknown(type: 0x2A, payload: RawBytes([0x01, 0x02])))
  }

  @Test func zeroLengthEndsTheSignificantPart() {
    // 02 01 06 = flags; 00 = end of significant part; FF FF = padding that must not be parsed.
    let ad = AdvertisingData([0x02, 0x01, 0x06, 0x00, 0xFF, 0xFF])
    #expect(ad.elements == [.flags(0x06)])
  }

  @Test func lengthRunningPastTheEndIsMalformed() {
    // 02 01 06 = flags; 1A FF 4C 00 = a 26-byte manufacturer AD of which only 3 bytes arrived.
    let ad = AdvertisingData([0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00])
    #expect(ad.elements.count == 2)
    #expect(
      ad.elements[1]
        == .malformed(type: 0xFF, payload: RawBytes([0x4C, 0x00]), issue: .lengthPastEnd(declared: 26, available: 3)))
    // A lone length octet: no type at all.
    #expect(
      AdvertisingData([0x05]).elements == [
        .malformed(type: nil, payload: RawBytes([]), issue: .lengthPastEnd(declared: 5, available: 0))
      ])
    #expect(throws: ADIssue.lengthPastEnd(declared: 5, available: 0)) { try AdvertisingData(validating: [0x05]) }
  }

  @Test func structuresTooShortForTheirTypeAreMalformed() throws {
    // 01 01 = flags with no octet; 04 03 AA FE 01 = 16-bit UUID list of 3 bytes; 02 FF 4C = manufacturer data
    // without a whole company ID; 02 16 AA = service data without a whole UUID; 01 0A = tx power without value.
    let ad = AdvertisingData(Hex.decode("0101" + "0403AAFE01" + "02FF4C" + "0216AA" + "010A")!)
    #expect(ad.elements.count == 5)
    #expect(
      ad.elements[0] == .malformed(type: 0x01, payload: RawBytes([]), issue: .payloadTooShort(minimum: 1, actual: 0)))
    #expect(
      ad.elements[1]
        == .malformed(
          type: 0x03, payload: RawBytes([0xAA, 0xFE, 0x01]), issue: .notMultipleOfUUIDWidth(width: 2, actual: 3)))
    #expect(
      ad.elements[2]
        == .malformed(type: 0xFF, payload: RawBytes([0x4C]), issue: .payloadTooShort(minimum: 2, actual: 1)))
    #expect(
      ad.elements[3]
        == .malformed(type: 0x16, payload: RawBytes([0xAA]), issue: .payloadTooShort(minimum: 2, actual: 1)))
    #expect(
      ad.elements[4] == .malformed(type: 0x0A, payload: RawBytes([]), issue: .payloadTooShort(minimum: 1, actual: 0)))
    #expect(throws: ADIssue.payloadTooShort(minimum: 1, actual: 0)) { try AdvertisingData(validating: [0x01, 0x01]) }
    #expect(try AdvertisingData(validating: [0x02, 0x01, 0x06]).elements == [.flags(6)])
  }

  @Test func parsesASliceWithNonZeroStartIndex() {
    // The report's bytes after a 3-byte prefix: 02 0A 04 = tx power +4 dBm.
    let bytes: [UInt8] = [0xEE, 0xEE, 0xEE, 0x02, 0x0A, 0x04]
    #expect(AdvertisingData(bytes[3...]).elements == [.txPowerLevel(4)])
  }

  @Test func elementsRoundTripThroughJSON() throws {
    let bytes = Hex.decode(
      "020106" + "05094B425072" + "0303AAFE" + "1107E09610A7F5D060B0D248FBDFB56DC5E2" + "0416802064" + "04FF530A22"
        + "020AF4" + "032A0102" + "0101")!
    let decoded = DecodedAdvertisement(bytes)
    let json = try JSONRoundTrip.encode(decoded)
    #expect(json.contains("\"uuids\":[\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\"]"))
    #expect(json.contains("\"type\":\"manufacturerData\"") && json.contains("\"companyID\":2643"))
    #expect(try JSONRoundTrip.decode(DecodedAdvertisement.self, json) == decoded)
  }
}
