import BeaconCore
import Profiles
import Testing

@testable import Fleet

/// In an apply, a device whose slot would change type without the keys the new type needs fails with the
/// profile's location, before anything is written; devices whose slot already has the type are updated.
@Suite("Slot type change in apply", .timeLimit(.minutes(1))) struct SlotTypeChangeVisitTests {
  @Test func aTypeChangeWithoutTheNewTypesKeysFailsOnlyThatDevice() async throws {
    let f = try ApplyCampaignTests.Fixture(count: 2)
    let uid = try #require(f.devices[BluetoothAddress("DD:34:02:06:D1:01")!])
    // Slot 0 is Eddystone UID (type 2); the profile makes it an iBeacon naming only major and minor.
    await uid.setSlot0([
      "slot": .integer(0), "type": .integer(2), "nid": .text("0x00112233445566778899"), "sid": .text("0xAABBCCDDEEFF"),
    ])
    let summary = try await f.campaign(run: try await f.newRun()).start()
    guard case .failed(let reason, .permanent)? = summary.outcomes["DD:34:02:06:D1:01"] else {
      Issue.record("not refused: \(String(describing: summary.outcomes["DD:34:02:06:D1:01"]))")
      return
    }
    #expect(reason.hasPrefix("p.json:2:"))
    #expect(reason.contains("$.desired.slots[0].type: slot 0 changes from eddystone-uid to ibeacon"))
    #expect(reason.hasSuffix("the profile does not set uuid"))
    #expect(await uid.writes.isEmpty)
    #expect(summary.outcomes["DD:34:02:06:D1:02"]?.state == .verified)
  }
}

extension FakeDevice {
  func setSlot0(_ slot: [String: SettingValue]) { config.slots[0] = slot }
}
