import BeaconCore
import CampaignPipeline
import Fleet
import NordicDFU
import Testing

@testable import BeaconProvisionCLI

/// Which devices a `reconcile` window counts as heard only as their DFU bootloader (`firmware-in-bootloader`
/// and the shared journal's takeovers start from them): a device whose application any profile selected in the
/// window is not silent, whichever profile's part of the pass is running. Before, each profile judged from its
/// own devices, so with two profiles a device of the second was taken for silent during the first's part.
@Suite(.timeLimit(.minutes(1))) struct ReconcileSilentBootloaderTests {
  static let first = BluetoothAddress("DD:35:2E:07:E1:02")!
  static let second = BluetoothAddress("DD:35:2E:07:E1:10")!

  /// A scan record at `address` whose advertisements carried `name` (a Complete Local Name).
  static func record(at address: BluetoothAddress, name: String) -> DeviceRecord {
    let data = ADEncoder.localName(name)
    let report = AdvertisingReport(address: address, addressType: .random, kind: .connectable, rssi: -60, data: data)
    return DeviceRecord(report: report, decoded: DecodedAdvertisement(data), at: 0)
  }

  /// The device's bootloader, named for it, at its address + 1.
  static func bootloader(of device: BluetoothAddress) -> DeviceRecord {
    record(at: BluetoothAddress(rawValue: device.rawValue + 1), name: BootloaderName.make(for: device, attempt: 1))
  }

  static func candidate(_ record: DeviceRecord) -> ReconcileDue.Candidate {
    ReconcileDue.Candidate(record: record, decision: .upToDate, drift: [], battery: nil)
  }

  @Test func aDeviceAnyProfileHeardAsItsApplicationIsNotSilent() {
    let records = [Self.bootloader(of: Self.first), Self.bootloader(of: Self.second)]
    let bootloaders = CampaignPipeline.bootloadersHeard(in: records)
    #expect(bootloaders.keys.sorted() == [Self.first.description, Self.second.description])
    // The second device's application was heard too, and the second profile selected it.
    let application = Self.candidate(Self.record(at: Self.second, name: "KBPro_07E110"))
    let silent = ReconcileLoop.heardOnlyAsBootloaders(bootloaders, candidates: [[], [application]])
    #expect(silent.keys.sorted() == [Self.first.description])
    #expect(silent[Self.first.description]?.address.rawValue == Self.first.rawValue + 1)
    // Heard by neither profile, both are silent; heard by the first, only the other.
    #expect(ReconcileLoop.heardOnlyAsBootloaders(bootloaders, candidates: [[], []]).count == 2)
    let firstApplication = Self.candidate(Self.record(at: Self.first, name: "KBPro_07E102"))
    #expect(
      ReconcileLoop.heardOnlyAsBootloaders(bootloaders, candidates: [[firstApplication], []]).keys.sorted() == [
        Self.second.description
      ])
  }
}
