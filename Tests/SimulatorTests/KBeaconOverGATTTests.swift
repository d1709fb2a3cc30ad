import BeaconCore
import KBeacon
import NordicDFU
import Testing

@testable import Simulator

/// The simulated KBeacon behind its GATT server, reached through a socketpair bearer, the real
/// `GATTClient` and `KBeaconSession` — the code path used with real hardware (docs/protocols/kbeacon.md §2–§9).
@Suite(.timeLimit(.minutes(3))) struct KBeaconOverGATTTests {
  static let address = BluetoothAddress("DD:34:02:06:D0:6C")!
  static let environment = KBeaconSession.Environment(
    randomBytes: { n in [UInt8](repeating: 0x5A, count: n) }, now: { 1_700_000_000 })

  struct Connection {
    var device: SimulatedKBeacon
    var client: GATTClient
    var link: SimulatedLink
  }

  func open(_ device: SimulatedKBeacon, mtu: Int) async throws -> Connection {
    let server = device.makeServer()
    let (bearer, link) = try await SimulatedLink.open(
      to: server, device: device.address, model: LinkModel(roundTripLatency: .zero, maxMTU: mtu))
    await device.attach(link)
    return Connection(device: device, client: GATTClient(bearer: bearer, transactionTimeout: .seconds(20)), link: link)
  }

  /// Transactions and session steps are awaited 20 s: at MTU 23 under AddressSanitizer on two busy cores, a
  /// `cfg` once took longer than 5 s; this test is about the sequence, not its speed.
  @Test(arguments: [23, 247]) func connectSequenceReadWriteAndCommands(mtu: Int) async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(), now: { 1_700_000_000 })
    let c = try await open(device, mtu: mtu)
    let (session, config) = try await KBeaconSession.connect(
      client: c.client, password: .factoryDefault, environment: Self.environment, timeouts: .all(.seconds(20)))
    #expect(await c.client.mtu == mtu)
    #expect(await session.budget == mtu - 6)
    #expect(config.generation == .pro)
    #expect(config.common[CommonKey.name] == "KBPro_SIM")
    #expect(config.slots.count == 5 && config.triggers.count == 5)
    var slot = SlotConfig(slot: 1, type: .eddystoneURL)
    slot[SlotKey.url] = "https://example.com/a-long-path/that-needs/several-frames"
    try await session.write(KBeaconConfiguration(slots: [slot]))
    #expect(
      await device.configuration.slot(1)?[SlotKey.url] == "https://example.com/a-long-path/that-needs/several-frames")
    try await session.send(.ring(milliseconds: 2000, type: 2))
    // The LED timing of the spec's example goes out with every ring (§6.7).
    #expect(await device.commandLog == [.ring(milliseconds: 2000, type: 2, ledOn: 200, ledOff: 1800)])
    await session.close()
  }

  @Test func wrongPasswordFailsAndTheDeviceDropsTheLink() async throws {
    let device = SimulatedKBeacon(
      address: Self.address, profile: .pro(), password: try KBeaconPassword("s3cret-s3cret"), now: { 0 })
    let c = try await open(device, mtu: 247)
    await #expect(throws: KBeaconAuthenticationError.wrongPassword) {
      _ = try await KBeaconSession.connect(client: c.client, password: .factoryDefault, environment: Self.environment)
    }
  }

  @Test func deviceDropsTheLinkWhenTheAppAnswersTheChallengeWrongly() async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(), now: { 0 })
    let c = try await open(device, mtu: 247)
    let link = try await GATTKBeaconLink.open(c.client)
    let frames = try await link.frames()
    var iterator = frames.makeAsyncIterator()
    try await link.writeFrame(hex("13 01 11223344"))
    let challenge = try await iterator.next()
    #expect(challenge?.prefix(2) == [0x13, 0x01])
    // 13 02 + a digest of zeros instead of MD5(MAC‖A9B1‖R2‖password) → 13 F1, then the link ends
    try await link.writeFrame(hex("13 02") + [UInt8](repeating: 0, count: 16))
    #expect(try await iterator.next() == hex("13 F1"))
    await #expect(throws: LinkError.self) { _ = try await iterator.next() }
  }

  @Test func fea3EventsReachTheSession() async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(), now: { 1_700_000_000 })
    let c = try await open(device, mtu: 247)
    let (session, _) = try await KBeaconSession.connect(
      client: c.client, password: .factoryDefault, environment: Self.environment)
    var trigger = TriggerConfig(index: 0, type: .temperatureAbove)
    trigger[TriggerKey.trAct] = .reportToApp
    trigger[TriggerKey.trPara] = 30
    try await session.write(KBeaconConfiguration(triggers: [trigger]))
    let events = try await session.events()
    let payload = try #require(await device.indication(for: .temperatureAbove, celsius: 31.5, humidity: 45))
    // The sensor fires: the device indicates on FEA3 to this connection.
    let server = c.link.connection
    #expect(try await server.indicate(KBeaconGATT.indicate, payload))
    var iterator = events.makeAsyncIterator()
    #expect(
      try await iterator.next()
        == .humidity(trigger: .temperatureAbove, utc: 1_700_000_000, celsius: 31.5, humidity: 45))
  }

  @Test func buttonlessDFUSetsTheNameThenEntersTheBootloader() async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(), now: { 0 })
    let entered = HookLog()
    await device.setBootloaderHook { address, name in await entered.record(address, name) }
    let c = try await open(device, mtu: 247)
    let characteristic = try await c.client.characteristic(DFUGATT.buttonlessWithoutBonds, inService: DFUGATT.service)
    #expect(characteristic.properties.contains(.write) && characteristic.properties.contains(.indicate))
    let indications = try await c.client.subscribe(to: characteristic)
    var iterator = indications.makeAsyncIterator()
    // 02 | len 08 | "DfuTarg1" → 20 02 01 (success)
    try await c.client.write(hex("02 08") + Array("DfuTarg1".utf8), to: characteristic.valueHandle)
    #expect(await iterator.next() == hex("20 02 01"))
    // 07 is not an opcode → 20 07 02 (op code not supported)
    try await c.client.write(hex("07"), to: characteristic.valueHandle)
    #expect(await iterator.next() == hex("20 07 02"))
    // 01 enter bootloader → 20 01 01, the hook runs with the name, the link drops
    try? await c.client.write(hex("01"), to: characteristic.valueHandle)
    #expect(await iterator.next() == hex("20 01 01"))
    #expect(await entered.calls == ["\(Self.address) DfuTarg1"])
  }
}

actor HookLog {
  var calls: [String] = []
  func record(_ address: BluetoothAddress, _ name: String?) { calls.append("\(address) \(name ?? "-")") }
}

func hex(_ text: String) -> [UInt8] { Hex.decode(text)! }
