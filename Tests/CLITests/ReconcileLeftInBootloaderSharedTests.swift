import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `ReconcileLeftInBootloaderTests`' device on a shared journal (a real PostgreSQL server; a suite of its own, so
/// the fast loop's `scripts/real-peer-suites` can leave it out).
@Suite(.serialized, .timeLimit(.minutes(4))) struct ReconcileLeftInBootloaderSharedTests {
  /// On a shared journal (a real PostgreSQL server), where a failed row is no claim's: the gateway that failed
  /// the device reopens its row in the profile's firmware run, keeping the step `transferring`, once its backoff
  /// has run, and the run's takeover finishes the device at its waiting bootloader — updated once, by the
  /// simulator's write log, and the row verified. Before, the device stayed in its bootloader.
  @Test func onASharedJournalTheGatewayThatFailedItReopensItAndFinishesIt() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(
      count: 1, block: 0x30, gateways: ["gw-1"], firmware: "5.12", dfu: ReconcileLeftInBootloaderTests.dfu
    ) { _, _ in
      -55
    }
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let gateway = try #require(
      try await ReconcileSeveralGatewaysTests.start(
        site, ["gw-1"], journal: url,
        extra: [
          "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware",
          "--backoff-base", "0.5", "--bootloader-timeout", "600",
        ]
      ).first)
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    var settled = false
    for _ in 0..<300 where !settled {
      try await Task.sleep(for: .milliseconds(500))
      let open = try await ReconcileSeveralGatewaysTests.rows(journal).filter { !$0.state.isFinal }
      settled = try site.writeLog.counts(what: "firmware").count == 1 && open.isEmpty
    }
    gateway.signal(SIGTERM)
    let (status, text) = await gateway.finish()
    #expect(status == 0, "\(text)")
    #expect(settled, "\(text)")
    #expect(try site.writeLog.counts(what: "firmware") == [site.address(0): 1], "\(text)")
    let runs = try await journal.runs().map(\.id).filter { $0.hasPrefix("reconcile-firmware-") }
    let rows = try await journal.devices(run: try #require(runs.first, "\(text)"))
    #expect(rows.map(\.state) == [.verified], "\(rows)")
    #expect(rows.first?.attempts ?? 0 >= 2, "\(rows)")
  }
}
