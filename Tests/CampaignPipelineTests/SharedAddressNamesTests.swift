import BeaconCore
import Fleet
import Foundation
import NordicDFU
import Testing

@testable import CampaignPipeline

/// Two advertisers at one address: a device's DFU bootloader comes up at its application's address + 1, the
/// next device's, so one scan record hears the neighbour's application and the bootloader named for the
/// device in turn (docs/protocols/nordic-dfu.md §2.2). Each advertisement is the bytes a real one carries (a
/// Complete Local Name AD structure), decoded as a scan decodes it. The record keeps every name it heard, and
/// a firmware campaign finds the bootloader whichever of the two spoke last — before, only the latest name
/// counted, and a `reconcile` gateway that heard the neighbour last never found the device a dead gateway had
/// left in its bootloader.
@Suite(.timeLimit(.minutes(1))) struct SharedAddressNamesTests {
  static let neighbour = BluetoothAddress("DD:35:2E:07:E1:03")!
  static let device = BluetoothAddress("DD:35:2E:07:E1:02")!

  /// One advertising report at `neighbour`'s address whose data is a Complete Local Name `name`.
  static func report(_ name: String) -> (AdvertisingReport, DecodedAdvertisement) {
    let data = ADEncoder.localName(name)
    let report = AdvertisingReport(
      address: neighbour, addressType: .random, kind: .connectable, rssi: -60, data: data)
    return (report, DecodedAdvertisement(data))
  }

  static func record(hearing names: [String]) -> DeviceRecord {
    let (first, decoded) = report(names[0])
    var record = DeviceRecord(report: first, decoded: decoded, at: 0)
    for (i, name) in names.dropFirst().enumerated() {
      let (next, decoded) = report(name)
      record.absorb(report: next, decoded: decoded, at: Double(i + 1) / 10)
    }
    return record
  }

  @Test func aRecordKeepsEveryNameHeardAtItsAddressTheLatestAsItsName() {
    let bootloader = BootloaderName.make(for: Self.device, attempt: 1)
    let single = Self.record(hearing: ["KBPro_07E103", "KBPro_07E103"])
    #expect(single.name == "KBPro_07E103" && single.names == nil && single.allNames == ["KBPro_07E103"])

    let both = Self.record(hearing: ["KBPro_07E103", bootloader, "KBPro_07E103", bootloader, "KBPro_07E103"])
    #expect(both.name == "KBPro_07E103")
    #expect(both.names == ["KBPro_07E103", bootloader])

    let many = Self.record(hearing: ["a", "b", "c", "d", "e", "f"])
    #expect(many.names == ["a", "b", "c", "d"] && many.name == "f")
  }

  @Test func aLaterWindowsNamesAreFoldedIn() {
    let bootloader = BootloaderName.make(for: Self.device, attempt: 2)
    var session = Self.record(hearing: ["KBPro_07E103"])
    session.merge(newer: Self.record(hearing: [bootloader, "KBPro_07E103"]))
    #expect(session.names == ["KBPro_07E103", bootloader] && session.name == "KBPro_07E103")
    var quiet = Self.record(hearing: ["KBPro_07E103"])
    quiet.merge(newer: Self.record(hearing: ["KBPro_07E103"]))
    #expect(quiet.names == nil)
  }

  @Test func aBootloaderIsFoundForItsDeviceWhenTheNeighbourSpokeLast() {
    let bootloader = BootloaderName.make(for: Self.device, attempt: 3)
    let record = Self.record(hearing: [bootloader, "KBPro_07E103"])
    #expect(record.name == "KBPro_07E103")
    let heard = CampaignPipeline.bootloadersHeard(of: [Self.device.description], in: [record])
    #expect(heard.keys.sorted() == [Self.device.description])
    #expect(heard[Self.device.description]?.name == bootloader)
    #expect(heard[Self.device.description]?.address == Self.neighbour)
    // A device the campaign did not name is not looked for.
    #expect(CampaignPipeline.bootloadersHeard(of: ["DD:35:2E:07:E1:04"], in: [record]).isEmpty)
  }

  /// Every bootloader of ours in a window, by the device that entered it (what `reconcile` weighs for
  /// takeovers): a record that heard only an application gives none; one device's bootloader heard under two
  /// attempts' names gives that device once, with the later record's name.
  @Test func everyBootloaderInAWindowIsFoundOncePerDevice() {
    let other = BluetoothAddress("DD:35:2E:07:E1:05")!
    let first = Self.record(hearing: [BootloaderName.make(for: Self.device, attempt: 1), "KBPro_07E103"])
    let second = Self.record(hearing: [BootloaderName.make(for: Self.device, attempt: 2)])
    let third = Self.record(hearing: ["KBPro_07E106", BootloaderName.make(for: other, attempt: 1)])
    let plain = Self.record(hearing: ["KBPro_07E103"])
    let heard = CampaignPipeline.bootloadersHeard(in: [plain, first, second, third])
    #expect(heard.keys.sorted() == [Self.device.description, other.description])
    #expect(heard[Self.device.description]?.name == BootloaderName.make(for: Self.device, attempt: 2))
    #expect(heard[other.description]?.name == BootloaderName.make(for: other, attempt: 1))
    #expect(CampaignPipeline.bootloadersHeard(in: [plain]).isEmpty)
  }

  /// Which rows a takeover finishes: a transfer cut short (its gateway died or stopped: the row still working or
  /// pending at `transferring`), not one its gateway failed (retried after that failure's backoff, and never
  /// handed out by a claim), nor one that finished or never began its transfer.
  @Test func onlyATransferCutShortIsTakenOver() {
    func row(_ state: DeviceState, _ step: VisitStep?) -> JournalDevice {
      JournalDevice(
        runId: "r", address: Self.device.description, state: state, step: step?.rawValue, attempts: 1, writes: 0,
        changes: nil, detail: nil, failureKind: nil, updatedAt: Date(timeIntervalSince1970: 0), addressType: .random)
    }
    #expect(row(.working, .transferring).isCutShortMidTransfer)
    #expect(row(.pending, .transferring).isCutShortMidTransfer)
    #expect(row(.failed, .transferring).isLeftMidTransfer && !row(.failed, .transferring).isCutShortMidTransfer)
    #expect(!row(.verified, .transferring).isCutShortMidTransfer)
    #expect(!row(.working, .verifying).isCutShortMidTransfer)
    #expect(!row(.pending, nil).isCutShortMidTransfer)
  }
}
