import BeaconCore
import KBeacon
import Testing

@testable import Simulator

/// A simulated KBeacon's GAP Device Name (0x2A00, Core Spec Vol 3 Part C §12.1) read over GATT: it is the
/// device's configured name (`name` on v2, `devName` on v1, docs/protocols/kbeacon.md §6.3), so it follows a
/// name written over FEA1 as a real unit's does.
@Suite("KBeacon GAP Device Name", .timeLimit(.minutes(1))) struct KBeaconGAPNameTests {
  static let address = BluetoothAddress("DD:34:02:06:D0:6C")!
  static let environment = KBeaconSession.Environment(
    randomBytes: { n in [UInt8](repeating: 0x5A, count: n) }, now: { 1_700_000_000 })

  func readName(_ client: GATTClient) async throws -> String {
    let characteristic = try await client.characteristic(BluetoothUUID(0x2A00), inService: BluetoothUUID(0x1800))
    return String(decoding: try await client.read(characteristic.valueHandle), as: UTF8.self)
  }

  @Test func nameWrittenOverFEA1IsTheNameReadFrom2A00() async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(name: "KBPro_old"), now: { 1_700_000_000 })
    let (bearer, link) = try await SimulatedLink.open(
      to: device.makeServer(), device: device.address, model: LinkModel(roundTripLatency: .zero))
    await device.attach(link)
    let client = GATTClient(bearer: bearer, transactionTimeout: .seconds(5))
    #expect(try await readName(client) == "KBPro_old")
    let (session, _) = try await KBeaconSession.connect(
      client: client, password: .factoryDefault, environment: Self.environment, timeouts: .all(.seconds(5)))
    var common = CommonConfig()
    common[CommonKey.name] = "door-7"
    try await session.write(KBeaconConfiguration(common: common))
    #expect(try await readName(client) == "door-7")
    await session.close()
    await link.disconnect()
  }

  @Test func legacyDeviceReportsItsDevName() async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .legacy(name: "KBeacon_v1"), now: { 0 })
    let (bearer, link) = try await SimulatedLink.open(
      to: device.makeServer(), device: device.address, model: LinkModel(roundTripLatency: .zero))
    let client = GATTClient(bearer: bearer, transactionTimeout: .seconds(5))
    #expect(try await readName(client) == "KBeacon_v1")
    await client.close()
    await link.disconnect()
  }
}
