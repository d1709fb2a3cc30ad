import BeaconCore
import CampaignPipeline
import Fleet
import Testing

/// The RSSI a target carries into a shared run's nearest-gateway rule: what the scan measured, and for a
/// device heard only with HCI's 127 ("not available", what BlueZ's virtual controllers always report) the
/// weakest value, −127 dBm — still a sighting. Found by the VM tier: both gateways of `reconcile-gateways`
/// heard both devices without an RSSI, recorded no sighting, and neither ever claimed one.
@Suite(.timeLimit(.minutes(1))) struct TargetRSSITests {
  static func record(_ address: String, rssi: Int8) -> DeviceRecord {
    let report = AdvertisingReport(
      address: BluetoothAddress(address)!, addressType: .public, kind: .connectable, rssi: rssi, data: [])
    return DeviceRecord(report: report, decoded: DecodedAdvertisement(elements: [], frames: []), at: 0)
  }

  @Test func aDeviceHeardWithoutAnRSSIIsTheWeakestSightingNotNone() {
    #expect(Target.heardRSSI(-61) == -61)
    #expect(Target.heardRSSI(nil) == -127)
    let selection = DFUTargetSelection(
      records: [Self.record("00:AA:01:01:00:01", rssi: 127), Self.record("00:AA:01:02:00:02", rssi: -70)],
      addresses: ["00:AA:01:01:00:01", "00:AA:01:02:00:02"], name: nil)
    #expect(selection.targets.map(\.rssi) == [-127, -70])
  }

  @Test func aResumedRunsUnheardDeviceHasNoSighting() {
    let unfinished = JournalDevice(
      runId: "r", address: "00:AA:01:03:00:03", state: .pending, step: nil, attempts: 0, writes: 0, changes: nil,
      detail: nil, failureKind: nil, updatedAt: .init(timeIntervalSince1970: 0), addressType: .public)
    let targets = CampaignPipeline.resumeTargets(unfinished: [unfinished], heard: [])
    #expect(targets.map(\.rssi) == [nil])
  }
}
