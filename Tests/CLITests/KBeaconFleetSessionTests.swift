import BeaconCore
import Fleet
import KBeacon
import Profiles
import Simulator
import Testing

/// The campaign's KBeacon adapter (`Fleet.KBeaconOpener`) against the simulated KBeacons of the demo fleet,
/// through `SimulatedCentral.withKBeacons` — the composition the CLI uses for `--adapter sim`.
@Suite(.timeLimit(.minutes(5))) struct KBeaconFleetSessionTests {
  let opener = KBeaconOpener(central: SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced).central)

  @Test func readPatchWithoutSlotTypeAndReadBack() async throws {
    let session = try await opener.open(
      Target(address: BluetoothAddress("DD:34:02:06:D1:04")!), password: Secret("0000000000000000"))
    let before = try await session.readConfiguration(.all)
    // the demo fleet's iBeacon (major 100, minor 4) is the device's slot 0
    #expect(before.slots[0]?["majorID"] == .integer(100) && before.slots[0]?["minorID"] == .integer(4))
    #expect(before.common["name"] == .text("KBPro_214814"))
    // the patch names the slot and majorID but not the type; the session adds slot 0's type (5) so the cfg
    // is valid (docs/protocols/kbeacon.md §6.2). (Fleet's adapter takes the slot index from the patch's "slot" key, as ConfigDiff writes it.)
    try await session.write(DeviceConfigView(slots: [0: ["slot": .integer(0), "majorID": .integer(9)]]))
    let after = try await session.readConfiguration(.all)
    #expect(after.slots[0]?["majorID"] == .integer(9))
    #expect(after.slots[0]?["type"] == .integer(5))
    await session.close()
  }

  @Test func wrongPasswordIsClassifiedSoTheCampaignNeverRetriesIt() async throws {
    do {
      _ = try await opener.open(
        Target(address: BluetoothAddress("DD:34:02:06:D1:06")!), password: Secret("wrong-password"))
      Issue.record("expected a failure")
    } catch let error as any ClassifiedFailure {
      #expect(error.failureKind == .wrongPassword)
    }
  }
}
