import Testing

@testable import BeaconCore

/// Eddystone UID, TLM and EID frames (docs/protocols/beacon-formats.md §2). URL is in `EddystoneURLTests`.
@Suite(.timeLimit(.minutes(1))) struct EddystoneFrameTests {
  static func frames(_ hex: String) throws -> [BeaconFrame] {
    DecodedAdvertisement(try vector(hex)).frames
  }

  @Test func uidWithReservedBytes() throws {
    // 03 03 AA FE                complete 16-bit UUID list: FEAA
    // 17 16 AA FE                service data, AD length 0x17, UUID FEAA
    // 00                         frame type UID
    // EE                         tx power at 0 m: −18 dBm
    // EDD1EBEAC04E5DEFA017       namespace (10 bytes)
    // 000000000001               instance (6 bytes)
    // 00 00                      RFU
    let frames = try Self.frames(
      "0303AAFE" + "1716AAFE" + "00" + "EE" + "EDD1EBEAC04E5DEFA017" + "000000000001" + "0000")
    guard case .eddystoneUID(let f)? = frames.first else {
      Issue.record("\(frames)")
      return
    }
    #expect(f.txPowerAt0m == -18)
    #expect(f.namespace.description == "EDD1EBEAC04E5DEFA017" && f.instance.description == "000000000001")
  }

  @Test func legacyUIDWithoutReservedBytes() throws {
    // 15 16 AA FE 00 | 12 = +18 dBm | namespace | instance — AD length 0x15, no RFU bytes.
    let frames = try Self.frames("1516AAFE" + "00" + "12" + "EDD1EBEAC04E5DEFA017" + "0A0B0C0D0E0F")
    guard case .eddystoneUID(let f)? = frames.first else {
      Issue.record("\(frames)")
      return
    }
    #expect(f.txPowerAt0m == 18 && f.instance.array == [0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F])
    #expect(Hex.encode(f.adStructure(legacy: true)) == "1516AAFE0012EDD1EBEAC04E5DEFA0170A0B0C0D0E0F")
    #expect(Hex.encode(f.adStructure()) == "1716AAFE0012EDD1EBEAC04E5DEFA0170A0B0C0D0E0F0000")
  }

  @Test func truncatedUIDIsMalformed() throws {
    // 0A 16 AA FE | 00 EE 01 02 03 04 05 — a UID frame of 7 bytes (18 needed).
    #expect(try Self.frames("0A16AAFE00EE0102030405").first?.kind == .eddystoneUID)
    guard case .malformed(let m)? = try Self.frames("0A16AAFE00EE0102030405").first else {
      Issue.record("not malformed")
      return
    }
    #expect(m.error == .truncated(needed: 18, available: 7))
  }

  @Test func tlmWithNegativeTemperature() throws {
    // 11 16 AA FE                service data, AD length 0x11
    // 20 00                      TLM, version 0
    // 0B B8                      VBATT 3000 mV
    // FF 80                      TEMP 8.8 signed: −1 + 0x80/256 = −0.5 °C
    // 00 00 00 64                ADV_CNT 100
    // 00 00 0E 10                SEC_CNT 3600 × 0.1 s = 360 s
    let frames = try Self.frames("0303AAFE" + "1116AAFE" + "2000" + "0BB8" + "FF80" + "00000064" + "00000E10")
    guard case .eddystoneTLM(let f)? = frames.first else {
      Issue.record("\(frames)")
      return
    }
    #expect(f.batteryMillivolts == 3000 && f.temperature == -0.5 && f.advertisingCount == 100)
    #expect(f.uptimeTenths == 3600 && f.uptimeSeconds == 360)
    // F3 80 = −13 + 0.5 = −12.5 °C.
    guard case .eddystoneTLM(let g)? = try Self.frames("1116AAFE2000" + "0BB8" + "F380" + "00000001" + "00000001").first
    else {
      Issue.record("not decoded")
      return
    }
    #expect(g.temperature == -12.5)
    #expect(Hex.encode(g.adStructure) == "1116AAFE20000BB8F3800000000100000001")
  }

  @Test func tlmUnsupportedFields() throws {
    // 20 00 | 00 00 = VBATT not supported | 80 00 = TEMP not supported | FFFFFFFF ADV_CNT | 00000001 SEC_CNT (0.1 s)
    guard case .eddystoneTLM(let f)? = try Self.frames("1116AAFE2000" + "0000" + "8000" + "FFFFFFFF" + "00000001").first
    else {
      Issue.record("not decoded")
      return
    }
    #expect(f.batteryMillivolts == nil && f.temperature == nil)
    #expect(f.advertisingCount == UInt32.max && f.uptimeSeconds == 0.1)
    #expect(Hex.encode(f.adStructure) == "1116AAFE200000008000FFFFFFFF00000001")
    let json = try JSONRoundTrip.encode(BeaconFrame.eddystoneTLM(f))
    #expect(!json.contains("temperature") && !json.contains("batteryMillivolts"))
  }

  @Test func tlmOtherVersionsAndLengthsAreMalformed() throws {
    // 20 01 …: encrypted eTLM (version 1) is not decoded.
    guard case .malformed(let m)? = try Self.frames("1116AAFE2001" + "0BB8FF800000006400000E10").first else {
      Issue.record("decoded")
      return
    }
    #expect(m.error == .unsupportedVersion(1) && m.frame == .eddystoneTLM)
    // 0F 16 AA FE | 20 00 0BB8 FF80 00000064 000E — 12 bytes instead of 14.
    guard case .malformed(let n)? = try Self.frames("0F16AAFE" + "20000BB8FF8000000064000E").first else {
      Issue.record("decoded")
      return
    }
    #expect(n.error == .wrongLength(expected: 14, actual: 12))
  }

  @Test func eidIsRecognised() throws {
    // 0D 16 AA FE | 30 = EID | E7 = −25 dBm | 0102030405060708 = ephemeral identifier
    guard case .eddystoneEID(let f)? = try Self.frames("0D16AAFE30E70102030405060708").first else {
      Issue.record("not EID")
      return
    }
    #expect(f.txPowerAt0m == -25 && f.ephemeralID.description == "0102030405060708")
    #expect(Hex.encode(f.adStructure) == "0D16AAFE30E70102030405060708")
  }

  @Test func unknownEddystoneFrameTypeCarriesNoFrame() throws {
    // 05 16 AA FE 40 00: frame type 0x40 is reserved.
    #expect(try Self.frames("0516AAFE4000").isEmpty)
  }
}
