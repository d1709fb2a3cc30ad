import Fleet
import Profiles
import Testing

@testable import BeaconProvisionCLI

/// A firmware campaign's progress lines speak of versions, not of configuration keys.
@Suite(.timeLimit(.minutes(5))) struct DFUProgressTextTests {
  @Test func anUpdatedDeviceReadsAsItsVersionChange() {
    let change = ConfigChange(scope: .common, key: "ver", old: .text("5.22"), new: .text("660.51"))
    #expect(DFUCampaignRunner.describe(.updated([change])) == "updated firmware 5.22 -> 660.51, verified")
    #expect(DFUCampaignRunner.describe(.skipped("battery 12 % < 30 %")) == "skipped: battery 12 % < 30 %")
    #expect(CampaignReport.describe(.updated([change])) == "updated 1 key, verified")
  }
}
