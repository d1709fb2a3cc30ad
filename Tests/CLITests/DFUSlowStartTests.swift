import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `dfu update` on a simulated KBeacon whose new application starts slowly after the update (`dfu.faults.
/// silentAfterUpdateMs`: it neither advertises nor takes a link meanwhile, as while its bootloader copies the
/// image into place): the first read-back connect times out, and the device is still reported updated in one
/// campaign attempt (`FirmwareWork.identifyAfterTransfer` looks again) — not failed, as it was before.
@Suite(.isolatedState, .timeLimit(.minutes(2))) struct DFUSlowStartTests {
  @Test func anApplicationThatStartsAfterTheFirstReadBackGaveUpIsStillReportedUpdated() async throws {
    let address = DFUFleetCampaignTests.address(0)
    // Silent 5 s against a connect timeout of 2 s: the first read-back times out unless it starts more than
    // 3 s after the update (a loaded machine's slack), and the third begins past 5 s.
    let fleet = try DFUFleetCampaignTests.fleet(
      count: 1,
      extra: [
        0: #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}, "#
          + #""dfu": {"faults": {"silentAfterUpdateMs": 5000}}"#
      ])
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    let command = try DFUUpdateCommand.parse([
      "--package", package, "--adapter", "sim:\(fleet)", "--scan", "5", "--retry-delay", "0",
      "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "2", "--attempts", "1",
    ])
    let result = try await DFUInvocation(command: command, pace: .unpaced, central: central).run()

    #expect(result.summary.outcomes[address]?.state == .verified, "\(result.summary.outcomes)")
    #expect(result.reports[address]?.to.description == "5.30")
    // The read-back did meet the silent application (so the fault fired and was looked past).
    #expect(central.bootloaders.connectsToSilentApplications.map(\.description).contains(address))
    #expect(try await DFUFleetCampaignTests.version(address, central: central) == "V5.30")
  }

  @Test func theFaultIsCheckedWhenTheFleetFileIsRead() throws {
    let data = Data(#"{"faults": {"silentAfterUpdateMs": 0}}"#.utf8)
    #expect(throws: (any Error).self) { try JSONDecoder().decode(DFUSection.self, from: data) }
    let fine = try JSONDecoder().decode(DFUSection.self, from: Data(#"{"faults": {"silentAfterUpdateMs": 900}}"#.utf8))
    #expect(fine.faults?.silentAfterUpdateMs == 900)
  }
}
