import BeaconCore
import Fleet
import KBeacon
import Profiles
import Testing

@testable import BeaconProvisionCLI

/// The campaign's `ConfigurationSession` over `KBeaconSession`, against the simulated fleet.
@Suite struct KBeaconFleetSessionTests {
  @Test func readPatchAndReadBack() async throws {
    let opener = KBeaconSessionOpener(adapter: .simulated(fleetFile: nil))
    let session = try await opener.open(
      Target(address: BluetoothAddress("DD:34:02:06:D1:05")!), password: Secret("0000000000000000"))
    let before = try await session.readConfiguration()
    #expect(before.slots[0]?["majorID"] == .integer(1))
    #expect(before.slots[0]?["advPrd"] == .number(1022.5))
    #expect(before.common["name"] == .text("KBPro_214815"))
    // a patch without the slot's type: the adapter adds type 5 so the cfg is valid (§6.2)
    try await session.write(DeviceConfigView(slots: [0: ["majorID": .integer(9)]]))
    let after = try await session.readConfiguration()
    #expect(after.slots[0]?["majorID"] == .integer(9))
    #expect(after.slots[0]?["type"] == .integer(5))
    await session.close()
  }

  @Test func wrongPasswordIsClassifiedSoTheCampaignNeverRetriesIt() async throws {
    let opener = KBeaconSessionOpener(adapter: .simulated(fleetFile: nil))
    do {
      _ = try await opener.open(
        Target(address: BluetoothAddress("DD:34:02:06:D1:06")!), password: Secret("wrong-password"))
      Issue.record("expected a failure")
    } catch let error as any ClassifiedFailure {
      #expect(error.failureKind == .wrongPassword)
    }
    #expect(KBeaconError.busy.failureKind == .transient)
    #expect(KBeaconError.deviceRejected(.invalidParameter).failureKind == .permanent)
  }
}
