import Fleet
import Profiles
import Testing

@testable import BeaconProvisionCLI

/// A firmware campaign's progress lines speak of versions, not of configuration keys.
@Suite(.timeLimit(.minutes(5))) struct DFUProgressTextTests {
  @Test func anUpdatedDeviceReadsAsItsVersionChange() {
    let change = ConfigChange(scope: .common, key: "ver", old: .text("5.22"), new: .text("660.51"))
    #expect(DFUCampaignReport.describe(.updated([change])) == "updated firmware 5.22 -> 660.51, verified")
    #expect(DFUCampaignReport.describe(.skipped("battery 12 % < 30 %")) == "skipped: battery 12 % < 30 %")
    #expect(CampaignReport.describe(.updated([change])) == "updated 1 key, verified")
  }

  /// A text-stream device's changes are commands it was sent: "updated 4 keys" read as if keys were written.
  @Test func aTextDeviceReadsAsTheCommandsItWasSent() {
    let commands = (0..<4).map {
      ConfigChange(scope: .command($0), key: "AT+NAME?", old: .text("a"), new: .text("AT+NAME=b"))
    }
    #expect(CampaignReport.describe(.updated(commands)) == "sent 4 commands, verified")
    #expect(CampaignReport.describe(.updated(Array(commands.prefix(1)))) == "sent 1 command, verified")
  }

  @Test func theSelectionLineCountsInTheRightNumber() {
    #expect(CampaignReport.selected(1, notSeen: 0) == "1 device selected")
    #expect(CampaignReport.selected(5, notSeen: 2) == "5 devices selected, 2 named but not seen")
  }
}
