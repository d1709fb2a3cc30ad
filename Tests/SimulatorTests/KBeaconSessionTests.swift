import BeaconCore
import KBeacon
import Testing

@testable import Simulator

/// `KBeaconSession` against the simulated KBeacon's protocol engine, at both ends of the MTU range
/// (docs/protocols/kbeacon.md §4–§9).
@Suite(.timeLimit(.minutes(3))) struct KBeaconSessionTests {
  static let address = BluetoothAddress("BC:57:29:01:02:03")!
  static let environment = KBeaconSession.Environment(
    randomBytes: { n in (0..<n).map { UInt8($0 &* 37 &+ 11) } }, now: { 1_700_000_000 })

  func connect(_ profile: KBeaconDeviceProfile = .pro(), mtu: Int, password: KBeaconPassword = .factoryDefault)
    async throws -> (KBeaconSession, SimulatedKBeacon, KBeaconDirectLink)
  {
    let device = SimulatedKBeacon(address: Self.address, profile: profile, now: { 1_700_000_000 })
    let link = await KBeaconDirectLink(device: device, mtu: mtu)
    let session = KBeaconSession(link: link, environment: Self.environment, timeouts: .all(.seconds(2)))
    try await session.authenticate(password: password)
    return (session, device, link)
  }

  @Test(arguments: [23, 247]) func readsTheFullProConfiguration(mtu: Int) async throws {
    let (session, device, link) = try await connect(mtu: mtu)
    #expect(await session.budget == mtu - 6)
    let config = try await session.readConfiguration(sections: .all)
    #expect(config.generation == .pro)
    #expect(config == (await device.configuration))
    #expect(config.slot(0)?[SlotKey.uuid] == "7777772E-6B6B-6D63-6E2E-636F6D000001")
    #expect(config.triggers.count == 5 && config.sensors.count == 2)
    // At MTU 23 the 26-byte getPara went out in two frames (START + END) and the response came as reports.
    let frames = await link.written.frames
    if mtu == 23 {
      #expect(frames.contains { $0.first == 0x20 } && frames.contains { $0.first == 0x22 })
      #expect(frames.contains { $0.first == 0x33 })
    }
  }

  @Test(arguments: [23, 247]) func writesOnlyTheGivenKeysAndReadsThemBack(mtu: Int) async throws {
    let (session, device, _) = try await connect(mtu: mtu)
    _ = try await session.readConfiguration()
    var slot = SlotConfig(slot: 0, type: .iBeacon)
    slot[SlotKey.majorID] = 4242
    slot[SlotKey.uuid] = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    var changes = KBeaconConfiguration(slots: [slot])
    changes.common[CommonKey.name] = "lobby-east-entrance"  // 19 chars: one too many
    await #expect(throws: KBeaconError.self) { try await session.write(changes) }
    changes.common[CommonKey.name] = "lobby-east"
    try await session.write(changes)
    let after = await device.configuration
    #expect(after.slot(0)?[SlotKey.majorID] == 4242)
    #expect(after.slot(0)?[SlotKey.minorID] == 1)  // untouched key kept
    #expect(after.common[CommonKey.name] == "lobby-east")
    #expect(try await session.readConfiguration() == after.withoutSensors)
  }

  @Test func deviceRejectsOutOfRangeValuesWithTheSpecCause() async throws {
    let (session, _, link) = try await connect(mtu: 247)
    // Skip the app-side check (no read yet, so no device limits are known): txPwr +5 is inside the table
    // range but above this device's maxPwr +4 → the device answers 0x103.
    var slot = SlotConfig(slot: 0, type: .iBeacon)
    slot[SlotKey.txPwr] = 5
    await #expect(throws: KBeaconError.deviceRejected(.invalidParameter)) {
      try await session.write(KBeaconConfiguration(slots: [slot]))
    }
    // Slot 4 exists, but this device cannot advertise AOA (no bCap bit) → 0x104.
    await #expect(throws: KBeaconError.deviceRejected(.featureUnsupported)) {
      try await session.write(KBeaconConfiguration(slots: [SlotConfig(slot: 4, type: .aoa)]))
    }
    // A slot index beyond the table's 0...4 is refused by the app before sending.
    await #expect(throws: KBeaconError.self) {
      try await session.write(KBeaconConfiguration(slots: [SlotConfig(slot: 7, type: .iBeacon)]))
    }
    // An unsupported trigger type → 0x117.
    await #expect(throws: KBeaconError.deviceRejected(.triggerNotSupported)) {
      try await session.write(KBeaconConfiguration(triggers: [TriggerConfig(index: 0, type: .pirBodyDetected)]))
    }
    _ = link
  }

  @Test func wrongPasswordIsADistinctErrorAndDropsTheLink() async throws {
    let device = SimulatedKBeacon(
      address: Self.address, profile: .pro(), password: try KBeaconPassword("correct-horse"), now: { 0 })
    let link = await KBeaconDirectLink(device: device, mtu: 247)
    let session = KBeaconSession(link: link, environment: Self.environment, timeouts: .all(.seconds(2)))
    await #expect(throws: KBeaconAuthenticationError.wrongPassword) {
      try await session.authenticate(password: .factoryDefault)
    }
    await #expect(throws: (any Error).self) { try await link.writeFrame([0x23, 0, 0]) }
  }

  @Test func busyDeviceAnswersCause10C() async throws {
    let (session, device, _) = try await connect(mtu: 247)
    await device.setForceBusy(true)
    await #expect(throws: KBeaconError.busy) { try await session.send(.ring(milliseconds: 1000, type: 1)) }
    await device.setForceBusy(false)
    try await session.send(.ring(milliseconds: 1000, type: 1))
    #expect(await device.commandLog == [.ring(milliseconds: 1000, type: 1)])
  }

  @Test(arguments: [23, 247]) func legacyDeviceIsDetectedByFallback(mtu: Int) async throws {
    let (session, device, link) = try await connect(.legacy(), mtu: mtu)
    let config = try await session.readConfiguration()
    #expect(config.generation == .legacy)
    #expect(config.common[LegacyKey.devName] == "KBeacon_SIM")
    #expect(config.triggers.count == 2)
    // the first getPara was the v2 form, rejected with 0x103, then the v1 initial read (stype 0x37 = 55)
    let requests = await link.written.frames.filter { (0x20...0x23).contains($0[0]) }.flatMap { $0.dropFirst(3) }
    #expect(
      String(decoding: requests, as: UTF8.self).hasPrefix(#"{"msg":"getPara","type":3}{"msg":"getPara","stype":55}"#))
    var changes = KBeaconConfiguration(generation: .legacy)
    changes.common[LegacyKey.txPwr] = -4
    try await session.write(changes)
    #expect(await device.configuration.common[LegacyKey.txPwr] == -4)
    try await session.send(.legacyReset)
    #expect(await device.configuration.common[LegacyKey.txPwr] == 0)
  }

  @Test(arguments: [23, 247]) func historyInAllThreeOrdersWithRelativeTimesCorrected(mtu: Int) async throws {
    let (session, device, _) = try await connect(mtu: mtu)
    // 60 records: the first 10 device-relative (seconds since boot), the rest absolute.
    let records: [SensorRecord] = (0..<60).map { (i: Int) -> SensorRecord in
      let utc: UInt32 = i < 10 ? UInt32(100 + i) : 1_699_990_000 + UInt32(i)
      let celsius = 20 + Double(i) / 4
      return SensorRecord(utc: utc, reading: .humidity(celsius: celsius, percent: 40))
    }
    await device.record(records, sensor: .humidity)
    let info = try await session.historyInfo(sensor: .humidity)
    #expect(info.total == 60 && info.unread == 60)
    let forward = try await session.readHistory(sensor: .humidity, order: .forward, pageSize: 25)
    #expect(forward.count == 60)
    #expect(forward[10] == records[10])
    // device clock = host clock after auth set it, so relative times get exactly the host offset
    #expect(forward[0].utc == 100 + UInt32(info.clockOffset(hostUTC: 1_700_000_000)))
    let reverse = try await session.readHistory(sensor: .humidity, order: .reverse, limit: 5)
    let newestFive: [UInt32] = records.suffix(5).reversed().map { $0.utc }
    #expect(reverse.map { $0.utc } == newestFive)
    let unread = try await session.readHistory(sensor: .humidity, order: .unread, limit: 30)
    #expect(unread.count == 30)
    #expect(try await session.historyInfo(sensor: .humidity).unread == 30)
    try await session.clearHistory(sensor: .humidity)
    #expect(try await session.historyInfo(sensor: .humidity).total == 0)
    await #expect(throws: KBeaconError.deviceRejected(.sensorNotSupported)) {
      try await session.historyInfo(sensor: .co2)
    }
  }

  @Test func legacyHistoryUsesTheV1InfoAndRequestForms() async throws {
    let (session, device, link) = try await connect(.legacy(), mtu: 23)
    _ = try await session.readConfiguration()
    let records: [SensorRecord] = (0..<5).map {
      SensorRecord(utc: 1_699_999_000 + UInt32($0), reading: .humidity(celsius: 20, percent: 50))
    }
    await device.record(records, sensor: .humidity)
    let read = try await session.readHistory(sensor: .humidity, order: .forward)
    #expect(read == records)
    // the v1 record request has no connection-interval byte: 03 0000 | 02 02 FFFFFFFF 2710 00 — 9 payload
    // bytes where v2 sends 10
    let recordRequests = await link.written.frames.filter { $0.first == 0x03 && $0.count > 3 && $0[3] == 0x02 }
    #expect(!recordRequests.isEmpty && recordRequests.allSatisfy { $0.count == 3 + 9 })
  }

  @Test func resetAndPowerOff() async throws {
    let (session, device, _) = try await connect(mtu: 247)
    var changes = KBeaconConfiguration()
    changes.common[CommonKey.name] = "renamed"
    try await session.write(changes)
    try await session.send(.factoryReset)
    #expect(await device.configuration.common[CommonKey.name] == "KBPro_SIM")
    try await session.send(.powerOff)
    #expect(await device.commandLog == [.factoryReset, .powerOff])
  }

  @Test func timeoutIsNamedAndQuick() async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(), now: { 0 })
    let link = SilentLink(peer: Self.address)
    let session = KBeaconSession(link: link, environment: Self.environment, timeouts: .all(.milliseconds(50)))
    await #expect(throws: KBeaconError.timeout(operation: "authentication")) {
      try await session.authenticate(password: .factoryDefault)
    }
    _ = device
  }
}

extension KBeaconConfiguration {
  var withoutSensors: KBeaconConfiguration {
    var c = self
    c.sensors = []
    return c
  }
}

/// A link to a device that never answers.
struct SilentLink: KBeaconLink {
  let peer: BluetoothAddress
  var attMTU: Int { get async { 247 } }
  func writeFrame(_ frame: [UInt8]) async throws {}
  func frames() async throws -> AsyncThrowingStream<[UInt8], any Error> { AsyncThrowingStream { _ in } }
  func indications() async throws -> AsyncThrowingStream<[UInt8], any Error> { AsyncThrowingStream { _ in } }
  func close() async {}
}
