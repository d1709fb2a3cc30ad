import Testing

@testable import BeaconCore

/// KKM KSensor 0x21, System 0x22 and the 0x2080 scan response (docs/protocols/kbeacon.md §10.2–§10.4).
@Suite(.timeLimit(.minutes(1))) struct KKMFrameTests {
  /// The real K6 KSensor sample (ble_monitor #835):
  /// 21        KSensor frame
  /// 01 0F     mask 0x010F: bit 0x100 (v1 version byte 1, no field), battery, temperature, humidity, acceleration
  /// 0E 07     battery 3591 mV
  /// 19 2A     temperature 0x192A / 256 = 25.1640625 °C
  /// 22 4F     humidity 0x224F / 256 = 34.30859375 %
  /// FF FC     acc X −4
  /// FF EC     acc Y −20
  /// 03 EB     acc Z 1003
  static let sample = "21010F0E07192A224FFFFCFFEC03EB"

  static func checkSample(_ f: KSensorFrame) {
    #expect(f.mask == 0x010F)
    #expect(f.batteryMillivolts == 3591)
    #expect(f.temperature == 25.1640625)
    #expect(f.humidity == 34.30859375)
    #expect(f.acceleration == .init(x: -4, y: -20, z: 1003))
    #expect(f.alarm == nil && f.lux == nil && f.co2 == nil && !f.extendedTemperature && f.unparsed == nil)
  }

  @Test func sampleAsEddystoneServiceData() throws {
    // 03 03 AA FE | 12 16 AA FE | <sample> — AD length 0x12 = 1 + 2 + 15.
    let frames = DecodedAdvertisement(try vector("0303AAFE" + "1216AAFE" + Self.sample)).frames
    guard case .kSensor(let f)? = frames.first else {
      Issue.record("\(frames)")
      return
    }
    Self.checkSample(f)
    #expect(Hex.encode(f.eddystoneADStructure) == "1216AAFE" + Self.sample)
  }

  @Test func sampleAsKKMManufacturerData() throws {
    // 12 FF | 53 0A = company 0x0A53 (KKM) | <sample>
    guard case .kSensor(let f)? = DecodedAdvertisement(try vector("12FF530A" + Self.sample)).frames.first
    else {
      Issue.record("not decoded")
      return
    }
    Self.checkSample(f)
    #expect(Hex.encode(f.manufacturerADStructure) == "12FF530A" + Self.sample)
  }

  @Test func everyMaskField() throws {
    // 21 06 FF     mask 0x06FF: every field with a layout
    // 0B B8        battery 3000 mV
    // 16 40        temperature 22.25 °C
    // 32 00        humidity 50.0 %
    // 0001 0002 03E8  acceleration (1, 2, 1000)
    // 01           alarm 1
    // 00           PIR 0
    // 01 F4        lux 500
    // 03 0064 000A VOC: age 3 (×10 s), VOC 100, NOx 10
    // 06 0320      CO2: age 6, 800 ppm
    // 01 0010      records: flags 1 (HT count valid), 16 records
    let hex =
      "2106FF" + "0BB8" + "1640" + "3200" + "0001000203E8" + "01" + "00" + "01F4" + "030064000A" + "060320" + "010010"
    let f = try KSensorFrame(payload: RawBytes(try vector(hex)))
    #expect(f.batteryMillivolts == 3000 && f.temperature == 22.25 && f.humidity == 50)
    #expect(f.acceleration == .init(x: 1, y: 2, z: 1000) && f.alarm == 1 && f.pir == 0 && f.lux == 500)
    #expect(f.voc == .init(ageTens: 3, voc: 100, nox: 10) && f.co2 == .init(ageTens: 6, ppm: 800))
    #expect(f.records == .init(flags: 1, count: 16))
    #expect(Hex.encode(f.frameBytes) == hex)
  }

  @Test func negativeHumidityExtendsTheTemperature() throws {
    // 21 00 06 | 32 80 = 50.5 °C | FE 00 = −2.0 → temperature (−1 − (−2))·100 + 50.5 = 150.5 °C, no humidity.
    let f = try KSensorFrame(payload: RawBytes(try vector("210006" + "3280" + "FE00")))
    #expect(f.temperature == 150.5 && f.humidity == nil && f.extendedTemperature)
    // 21 00 06 | F6 00 = −10 °C | 2A 80 = 42.5 %: ordinary negative temperature, humidity kept.
    let g = try KSensorFrame(payload: RawBytes(try vector("210006" + "F600" + "2A80")))
    #expect(g.temperature == -10 && g.humidity == 42.5 && !g.extendedTemperature)
  }

  @Test func truncatedAndUnknownBits() throws {
    // 21 00 03 | 0E 07 | 19 — temperature needs 2 bytes at offset 5, only 1 present.
    #expect(throws: FrameDecodingError.truncated(needed: 7, available: 6)) {
      try KSensorFrame(payload: RawBytes(Hex.decode("2100030E0719")!))
    }
    #expect(throws: FrameDecodingError.truncated(needed: 3, available: 2)) {
      try KSensorFrame(payload: RawBytes([0x21, 0x00]))
    }
    // 21 08 01 | 0E 07 | AB CD — mask bit 0x0800 has no known layout: battery decodes, AB CD kept.
    let f = try KSensorFrame(payload: RawBytes(Hex.decode("2108010E07ABCD")!))
    #expect(f.batteryMillivolts == 3591 && f.unparsed?.array == [0xAB, 0xCD])
  }

  @Test func systemFrame() throws {
    // 0E FF | 53 0A = KKM | 22 = System | 0C = model 12 | 5F = battery 95 % | DD 34 02 06 D1 01 = MAC | 05 0B = fw 5.11
    let hex = "0EFF530A" + "22" + "0C" + "5F" + "DD340206D101" + "050B"
    guard case .kkmSystem(let f)? = DecodedAdvertisement(try vector(hex)).frames.first else {
      Issue.record("no")
      return
    }
    #expect(
      f.model == 12 && f.batteryPercent == 95 && f.macAddress.description == "DD:34:02:06:D1:01"
        && f.firmwareVersion == "5.11")
    #expect(Hex.encode(f.manufacturerADStructure) == hex)
    // The same frame as Eddystone service data: 0E 16 AA FE 22 …
    guard
      case .kkmSystem(let g)? = DecodedAdvertisement(Hex.decode("0E16AAFE" + "220C5FDD340206D101050B")!).frames.first
    else {
      Issue.record("no")
      return
    }
    #expect(g == f)
    // 10 bytes only: truncated.
    #expect(throws: FrameDecodingError.truncated(needed: 11, available: 10)) {
      try KKMSystemFrame(payload: RawBytes(Hex.decode("220C5FDD340206D10105")!))
    }
  }

  @Test func realK6ScanResponse() throws {
    // 0D 09 "KBPro_214810"            complete local name (12 bytes)
    // 09 16 80 20                     service data, UUID 0x2080
    // 6D                              battery 109 → clamped to 100 %
    // 01                              flags 0x01 (KSensor in v1 numbering)
    // 00 00 00 00
    let decoded = DecodedAdvertisement(try vector("0D094B4250726F5F323134383130" + "091680206D0100000000"))
    #expect(decoded.localName == "KBPro_214810")
    guard case .kkmScanResponse(let f)? = decoded.frames.first else {
      Issue.record("\(decoded.frames)")
      return
    }
    #expect(f.batteryPercent == 100 && f.advertisingFlags == 0x01 && f.iBeaconMajor == nil && f.macSuffix == nil)
    #expect(f.raw.description == "6D0100000000")
  }

  @Test func scanResponseVariants() {
    // 64 04 0001 04B1: battery 100 %, flag 0x04 (iBeacon) → major 1, minor 1201.
    let legacy = KKMScanResponseFrame(payload: RawBytes(Hex.decode("6404000104B1")!))
    #expect(legacy.batteryPercent == 100 && legacy.iBeaconMajor == 1 && legacy.iBeaconMinor == 1201)
    // 5A 00 01 06 D1 01: battery 90 %, marker 00 01, MAC low bytes 06:D1:01.
    let pro = KKMScanResponseFrame(payload: RawBytes(Hex.decode("5A000106D101")!))
    #expect(pro.batteryPercent == 90 && pro.macSuffix?.description == "06D101" && pro.iBeaconMajor == nil)
    // 5A 01: two bytes only — battery not trusted (length must exceed 2).
    let short = KKMScanResponseFrame(payload: RawBytes([0x5A, 0x01]))
    #expect(short.batteryPercent == nil && short.advertisingFlags == 0x01)
  }
}
