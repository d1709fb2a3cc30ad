import BeaconCore
import Fleet
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI
@testable import CampaignPipeline

/// `dfu update --firmware latest --resume RUN` (docs/protocols/nordic-dfu.md §2.5): a device whose transfer broke
/// off waits in its bootloader, with part of the image. Its application neither advertises nor answers, so
/// the resume cannot read its model and hardware version; they come from the fleet registry, which the first
/// run's visit filled. The package is resolved from the catalogue, and the transfer goes on from what the
/// bootloader holds: no second jump, and fewer bytes sent than the image. The scan heard the device only as its
/// bootloader, so the resume never tries the silent application (on a radio, each try waits out the link
/// timeout: the survey's, the visit's and the jump's connects were three).
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct CatalogueResumeTests {
  static let application = "DD:34:02:0B:F0:00"

  /// One KBeacon Pro at 5.12 whose DFU link drops at byte 2,000 of the image and then on the next 5 data writes
  /// — one more than a run's transfer makes before it gives up (4 losses in a row without progress), so the
  /// resume meets one drop and reconnects; its bootloader waits ten minutes for a link.
  static func fleet() throws -> String {
    let device =
      #"{"address": "\#(application)", "kind": "kbeaconPro", "name": "KBPro_R", "intervalMs": 300, "#
      + #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}, "#
      + #""dfu": {"inactivityTimeoutMs": 600000, "faults": {"dropLinkAtByte": 2000, "dropsAfterward": 5}}}"#
    let path = NSTemporaryDirectory() + "catalogue-resume-\(UUID().uuidString).json"
    try #"{"version": 1, "devices": [\#(device)]}"#.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func aResumeFinishesATransferTheBootloaderHoldsPartOf() async throws {
    let root = NSTemporaryDirectory() + "catalogue-resume-\(UUID().uuidString)"
    let (folder, cacheDir) = (root + "/catalogue", root + "/cache")
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: folder)
    let fleet = try Self.fleet()
    defer { for p in [root, fleet] { try? FileManager.default.removeItem(atPath: p) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    let catalogue = ["--firmware", "latest", "--catalog", folder, "--firmware-dir", cacheDir]

    let first = try await CatalogueFolderCampaignTests.update(catalogue, fleet: fleet, central: central)
    #expect(first.summary.outcomes[Self.application]?.state == .failed, "\(first.summary.outcomes)")
    let address = BluetoothAddress(Self.application)!
    #expect(central.bootloaders.isInBootloader(address))
    // A new run named the device: not heard, but its bootloader is, under the name this tool gave it, and
    // the run that left it is found in the journal.
    let heard = try await ScanRunner.campaignScan(central, 1, [])
    let waiting = CampaignPipeline.bootloadersHeard(of: [Self.application], in: heard)
    #expect(waiting[Self.application]?.name == "DfuDD34020BF000-1", "\(heard.map { ($0.address, $0.name) })")
    #expect(waiting[Self.application]?.address.description == "DD:34:02:0B:F0:01")
    let journal = try Journal(path: StateDirectory.resolve(nil).appendingPathComponent("journal.sqlite"))
    #expect(await CampaignPipeline.runLeaving(Self.application, journal: journal)?.id == first.summary.run)
    let bootloader = try #require(central.bootloaders.peripheral(ofApplication: address))
    let held = await bootloader.target.firmwareBytesReceived
    #expect(held > 0 && held < 4096, "part of the 4,096-byte image: \(held)")
    #expect(await bootloader.linkDrops == 5, "the drop at byte 2,000 and the 4 that made the run give up")

    let silentBefore = central.bootloaders.connectsToSilentApplications
    let resumed = try await CatalogueFolderCampaignTests.update(
      catalogue + ["--resume", first.summary.run, "--address", Self.application], fleet: fleet, central: central)
    #expect(resumed.summary.outcomes[Self.application]?.state == .verified, "\(resumed.summary.outcomes)")
    #expect(resumed.notSeen.isEmpty, "a device the resume visits unheard is not reported as not seen")
    #expect(resumed.reports[Self.application]?.from?.description == "5.12")
    #expect(resumed.reports[Self.application]?.to.description == "5.14")
    #expect(central.bootloaders.entered == [address], "no second jump: the resume went to the waiting bootloader")
    #expect(
      central.bootloaders.connectsToSilentApplications == silentBefore,
      "the resume connected to the application it heard only as its bootloader")
    #expect(await bootloader.linkDrops == 6, "the resume met the last drop and reconnected")
    let sent = await bootloader.target.firmwareBytesReceived - held
    #expect(sent > 0 && sent < 4096, "the transfer went on from what the bootloader held: \(sent) bytes sent")
    // The report counts what this run delivered, not the image (so its bytes/s is the resume's own): the image
    // less what the bootloader held — and so not the packets the resume's own drop lost, which were sent again.
    let report = try #require(resumed.reports[Self.application])
    #expect(report.bytes == 4096 - held && report.imageBytes == 4096, "\(report), held \(held), \(sent) arrived")
    #expect(
      DFUCampaignReport.table(resumed).contains("\(report.bytes) bytes of 4096 (the rest already on the device)"),
      "\(DFUCampaignReport.table(resumed))")
    #expect(try await DFUFleetCampaignTests.version(Self.application, central: central) == "V5.14")
    #expect(await CampaignPipeline.runLeaving(Self.application, journal: journal) == nil, "finished: no run left it")
  }
}
