import Testing

@testable import KBeacon

/// Sensor history HEX messages (docs/protocols/kbeacon.md §9).
@Suite(.timeLimit(.minutes(1))) struct SensorHistoryTests {
  @Test func requestsInTheThreeOrders() throws {
    // 01 = read info, 02 = HT sensor
    #expect(HistoryRequest.info(sensor: 2).bytes == hex("01 02"))
    // 02 read records | 02 HT | pos FFFFFFFF (from last) | count 0064 | option 02 unread | conn interval 18 (30 ms)
    let unread = HistoryRequest.records(
      sensor: 2, position: HistoryRequest.anyPosition, count: 100, order: .unread, connectionInterval: 24)
    #expect(unread.bytes == hex("02 02 FFFFFFFF 0064 02 18"))
    // option 00 forward from position 10, option 01 reverse
    #expect(
      HistoryRequest.records(sensor: 2, position: 10, count: 5, order: .forward, connectionInterval: 24).bytes
        == hex("02 02 0000000A 0005 00 18"))
    #expect(
      HistoryRequest.records(sensor: 2, position: 10, count: 5, order: .reverse, connectionInterval: 24).bytes
        == hex("02 02 0000000A 0005 01 18"))
    // v1: no connection-interval byte
    #expect(
      HistoryRequest.records(sensor: 2, position: 0, count: 1, order: .forward, connectionInterval: nil).bytes
        == hex("02 02 00000000 0001 00"))
    // 03 = clear
    #expect(HistoryRequest.clear(sensor: 0x41).bytes == hex("03 41"))
    for r in [unread, .info(sensor: 8), .clear(sensor: 2)] { #expect(try HistoryRequest(bytes: r.bytes) == r) }
    #expect(throws: KBeaconError.self) { try HistoryRequest(bytes: hex("02 02 FFFF")) }
  }

  @Test func infoResponseAndClockOffset() throws {
    // 01 | srType 02 | total 00000064 = 100 | unread 0000000A = 10 | device UTC 00001000 = 4096
    let info = try HistoryInfo(bytes: hex("01 02 00000064 0000000A 00001000"))
    #expect(info == HistoryInfo(sensor: 2, total: 100, unread: 10, deviceUTC: 4096))
    #expect(info.clockOffset(hostUTC: 0x6500_0000) == 1_694_498_816 - 4096)
    #expect(throws: KBeaconError.self) { try HistoryInfo(bytes: hex("01 02 00000064")) }
    // v1: 01 | 02 | total 0064 = 100 | unread 000A = 10 | UTC 00001000, read from offset 2
    let legacy = try HistoryInfo(legacyBytes: hex("01 02 0064 000A 00001000"))
    #expect(legacy == info)
    #expect(legacy.legacyBytes == hex("01 02 0064 000A 00001000"))
    #expect(throws: KBeaconError.self) { try HistoryInfo(legacyBytes: hex("01 02 0064 000A")) }
  }

  @Test func recordsOfEverySensorKind() throws {
    // HT: utc 65000000 | temp 1980 = 25.5 °C | hum 3240 = 50.25 %
    #expect(
      try SensorRecord(sensor: 0x02, bytes: hex("65000000 1980 3240")[...])
        == SensorRecord(utc: 0x6500_0000, reading: .humidity(celsius: 25.5, percent: 50.25)))
    // HT below zero: FE80 = −1.5 °C
    #expect(
      try SensorRecord(sensor: 0x02, bytes: hex("65000000 FE80 3240")[...]).reading
        == .humidity(celsius: -1.5, percent: 50.25))
    // Alarm: status 01
    #expect(try SensorRecord(sensor: 0x08, bytes: hex("65000010 01")[...]).reading == .alarm(status: 1))
    // PIR: indication 01 (alert)
    #expect(try SensorRecord(sensor: 0x10, bytes: hex("65000020 01")[...]).reading == .pir(indication: 1))
    // Light: type 01 light | reserved 00 | lux 01F4 = 500
    #expect(
      try SensorRecord(sensor: 0x20, bytes: hex("65000030 01 00 01F4")[...]).reading
        == .light(type: 1, reserved: 0, lux: 500))
    // VOC: voc 0064 = 100 | nox 0032 = 50
    #expect(try SensorRecord(sensor: 0x40, bytes: hex("65000040 0064 0032")[...]).reading == .voc(index: 100, nox: 50))
    // CO2: ppm 0320 = 800 | temp 1600 = 22.0 | hum 2800 = 40.0
    let co2 = try SensorRecord(sensor: 0x41, bytes: hex("65000050 0320 1600 2800")[...])
    #expect(co2.reading == .co2(ppm: 800, celsius: 22, percent: 40))
    #expect(co2.bytes == hex("65000050 0320 1600 2800"))
    #expect(throws: KBeaconError.self) { try SensorRecord(sensor: 0x02, bytes: hex("65000000 1980")[...]) }
    #expect(throws: KBeaconError.self) { try SensorRecord(sensor: 0x44, bytes: hex("65000000 1980")[...]) }
  }

  @Test func pageWithTwoRecordsAndRelativeTimes() throws {
    // 02 | len 0015 = 21 (total 24 − 3) | srType 02 | nextPos FFFFFFFF (no more) | two 8-byte HT records,
    // the second with a device-relative time 00000F00 = 3840 s
    let bytes = hex("02 0015 02 FFFFFFFF 65000000 1980 3240 00000F00 1A00 3200")
    let page = try HistoryPage(bytes: bytes)
    #expect(page.sensor == 2 && page.nextPosition == HistoryPage.noMore && page.records.count == 2)
    #expect(page.bytes == bytes)
    let offset = Int64(1_694_498_816 - 4096)
    #expect(page.records[0].corrected(offset: offset).utc == 0x6500_0000)  // absolute, unchanged
    #expect(page.records[1].isRelative)
    #expect(page.records[1].corrected(offset: offset).utc == UInt32(3840 + offset))
    // a wrong length field or a partial record are errors
    #expect(throws: KBeaconError.self) { try HistoryPage(bytes: hex("02 0016 02 FFFFFFFF 65000000 1980 3240")) }
    #expect(throws: KBeaconError.self) { try HistoryPage(bytes: hex("02 0009 02 FFFFFFFF 65000000")) }
  }
}

/// FEA3 indications (docs/protocols/kbeacon.md §8.3).
@Suite(.timeLimit(.minutes(1))) struct IndicationTests {
  @Test func v2HumidityTriggerAndOtherEvents() throws {
    // 08 = HTTempAbove | UTC 65000000 | temp 1980 = 25.5 | hum 3240 = 50.25
    #expect(
      try IndicationEvent(payload: hex("08 65000000 1980 3240"), generation: .pro)
        == .humidity(trigger: .temperatureAbove, utc: 0x6500_0000, celsius: 25.5, humidity: 50.25))
    // 44 & 3F = 4 single click, body 01
    #expect(try IndicationEvent(payload: hex("44 01"), generation: .pro) == .trigger(type: 4, body: [1]))
    #expect(throws: KBeaconError.self) { try IndicationEvent(payload: hex("09 6500"), generation: .pro) }
  }

  @Test func v2PayloadsEncodeWhatTheyDecode() throws {
    // 09 = HTTempBelow | UTC 65000000 | temp FE80 = −1.5 | hum 3240 = 50.25
    let event = IndicationEvent.humidity(trigger: .temperatureBelow, utc: 0x6500_0000, celsius: -1.5, humidity: 50.25)
    #expect(event.proPayload == hex("09 65000000 FE80 3240"))
    #expect(IndicationEvent.trigger(type: 5, body: [2]).proPayload == hex("05 02"))
    #expect(IndicationEvent.legacyButton(press: 2).proPayload == nil)
  }

  @Test func v1Notifications() throws {
    // 03 button | 04 double click
    #expect(try IndicationEvent(payload: hex("03 04"), generation: .legacy) == .legacyButton(press: 4))
    // 02 humidity | UTC | temp | hum
    #expect(
      try IndicationEvent(payload: hex("02 65000000 1980 3240"), generation: .legacy)
        == .legacyHumidity(utc: 0x6500_0000, celsius: 25.5, humidity: 50.25))
    // 01 proximity | UTC | MAC low 4 | major 0001 | minor 0002 | seconds 0A | distance 03
    #expect(
      try IndicationEvent(payload: hex("01 65000000 29010203 0001 0002 0A 03"), generation: .legacy)
        == .legacyProximity(utc: 0x6500_0000, macLow: hex("29010203"), major: 1, minor: 2, seconds: 10, distance: 3))
  }
}

/// Error and timeout names (docs/protocols/kbeacon.md §12).
@Suite(.timeLimit(.minutes(1))) struct ErrorCatalogTests {
  @Test func everyDeviceCauseHasItsSpecMeaning() {
    for code: UInt16 in [
      0x102, 0x103, 0x104, 0x105, 0x106, 0x107, 0x108, 0x109, 0x10A, 0x10B, 0x10C, 0x116, 0x117, 0x118, 0x119,
    ] {
      #expect(DeviceCause.meanings[code] != nil, "0x\(String(code, radix: 16))")
    }
    #expect(DeviceCause.invalidParameter.description == "input parameter invalid (0x103)")
    #expect(DeviceCause(0x1FF).description == "device error 0x1FF")
    #expect(KBeaconError.busy.sdkCode == 1 && KBeaconError.notSupported("x").sdkCode == 8)
    #expect(KBeaconTimeouts.read == .seconds(15) && KBeaconTimeouts.indicationSubscription == .seconds(3))
  }
}
