import Fleet
import Testing

@testable import BeaconProvisionCLI

/// Off a terminal, `plan`/`apply` name each device once: in the summary, not also in a progress line.
@Suite("Campaign progress off a terminal", .timeLimit(.minutes(1))) struct CampaignProgressTextTests {
  @Test func finishedDevicesAreNotPrintedBeforeTheSummaryListsThem() {
    let progress = CampaignProgress(json: false, isTerminal: false)
    let addresses = (1...4).map { "DD:34:02:06:D1:0\($0)" }
    var lines: [String] = []
    for address in addresses {
      for event in [
        CampaignEvent.step(address: address, .connecting, attempt: 1), .finished(address: address, .compliant),
      ] {
        if let text = progress.text(for: event, total: addresses.count) { lines.append(text) }
      }
    }
    #expect(!lines.contains { line in addresses.contains { line.contains($0) } }, "\(lines)")
    #expect(lines.last == "devices: 4 done, 0 failed, 0 pending")
    // A retry is news the summary does not carry: it is still printed.
    #expect(
      progress.text(for: .retrying(address: addresses[0], attempt: 2, after: .seconds(5), reason: "busy"), total: 4)?
        .contains(addresses[0]) == true)
  }
}
