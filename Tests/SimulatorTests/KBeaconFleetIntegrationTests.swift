import BeaconCore
import KBeacon
import NordicDFU
import Testing

@testable import Simulator

/// KBeacon-kind fleet devices served through `SimulatedCentral.withKBeacons`: the same `Central.connect`
/// path the CLI and the campaign use.
@Suite(.timeLimit(.minutes(3))) struct KBeaconFleetIntegrationTests {
  @Test func bootloaderHookFiresThroughTheCentral() async throws {
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    let entered = HookLog()
    kbeacons.setBootloaderHook { address, name in await entered.record(address, name) }
    let address = BluetoothAddress("DD:34:02:06:D1:01")!
    let client = GATTClient(bearer: try await central.connect(to: address, type: .public, timeout: .seconds(1)))
    let buttonless = try await client.characteristic(DFUGATT.buttonlessWithoutBonds, inService: DFUGATT.service)
    var indications = try await client.subscribe(to: buttonless).makeAsyncIterator()
    try? await client.write(hex("01"), to: buttonless.valueHandle)
    // 20 01 01: enter bootloader, success
    #expect(await indications.next() == hex("20 01 01"))
    #expect(await entered.calls == ["DD:34:02:06:D1:01 -"])
  }

  @Test func wrongPasswordThroughTheCentralDropsTheLink() async throws {
    let (central, _) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    let bearer = try await central.connect(
      to: BluetoothAddress("DD:34:02:06:D1:02")!, type: .public, timeout: .seconds(1))
    let link = try await GATTKBeaconLink.open(GATTClient(bearer: bearer))
    var frames = try await link.frames().makeAsyncIterator()
    try await link.writeFrame(hex("13 01 11223344"))
    _ = try await frames.next()
    // a wrong D2 → 13 F1, then the device drops the link
    try await link.writeFrame(hex("13 02") + [UInt8](repeating: 0xEE, count: 16))
    #expect(try await frames.next() == hex("13 F1"))
    await #expect(throws: LinkError.self) { _ = try await frames.next() }
  }

  @Test func nonKBeaconDevicesKeepTheGenericDatabase() async throws {
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    #expect(kbeacons.kbeacon(BluetoothAddress("AC:23:3F:00:00:01")!) == nil)
    let client = GATTClient(
      bearer: try await central.connect(to: BluetoothAddress("AC:23:3F:00:00:01")!, type: .public, timeout: .seconds(1))
    )
    let database = try await client.discover()
    #expect(database.characteristic(KBeaconGATT.write, inService: KBeaconGATT.service) == nil)
  }
}
