import BeaconCore
import KBeacon
import Simulator
import Testing

/// Two gateways' simulations of one site (`KBeaconSimulation.setSharedAir`): a firmware install by one is
/// newer than the other's copy of the device, so a drift the other applies afterwards keeps the new version.
@Suite("Shared air after a firmware install", .timeLimit(.minutes(1))) struct SharedAirFirmwareTests {
  static let address = BluetoothAddress("DD:34:02:06:E1:01")!

  static func fleet() -> SimulatedFleet {
    SimulatedFleet(devices: [
      SimulatedDevice(
        address: address, kind: .kbeaconPro, name: "KBPro_E1", intervalMs: 300,
        system: SystemSection(model: 12, batteryPercent: 95, firmware: "5.12"))
    ])
  }

  @Test func anInstallByAnotherGatewayOutranksThisGatewaysCopy() async throws {
    let east = KBeaconSimulation(fleet: Self.fleet(), now: { 0 })
    let west = KBeaconSimulation(fleet: Self.fleet(), now: { 0 })
    let here = try #require(east.kbeacon(Self.address))
    let before = await here.snapshot().writes
    // The other gateway updates the device; its save is what the shared air holds.
    await west.kbeacon(Self.address)?.installFirmware(version: "5.14")
    let saved = await west.changedSnapshots()
    #expect(saved[Self.address].map { $0.writes } == before + 1, "an install counts as a saved change")
    east.setSharedAir { saved }
    _ = await east.advertisedDevices()
    #expect(await here.configuration.common.fields["ver"] == .string("5.14"), "the newer install was taken")
    // A drift of this gateway's own now saves the installed version, not its old copy's.
    var overlay = KBeaconConfiguration()
    overlay.common[CommonKey.name] = "drifted"
    await here.drift(overlay)
    let mine = try #require(await east.changedSnapshots()[Self.address])
    #expect(mine.configuration.common.fields["ver"] == .string("5.14"))
  }
}
