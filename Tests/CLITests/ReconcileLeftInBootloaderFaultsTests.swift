import BeaconCore
import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// A row reopened for a device left in its DFU bootloader (`ReconcileLeftInBootloaderSharedTests`), on a real
/// PostgreSQL server, under the faults the shared firmware takeover is tested through
/// (`ReconcileFirmwareFaultsTests`): the gateway finishing the device is killed (SIGKILL), stopped past its
/// lease and resumed, or stopped across a server restart — each time at the reopened transfer itself, where
/// gw-1 stops itself (`before-transfer:ADDRESS:4`: the device's fourth visit, after the configuration pass's and
/// the failed firmware campaign's two; a visit at a waiting bootloader starts at `transferring`, so it stops once
/// it holds the lease, before the link). In each the device ends updated exactly once, counted from the simulated devices'
/// shared write log, and its row verified.
@Suite(.serialized, .timeLimit(.minutes(6))) struct ReconcileLeftInBootloaderFaultsTests {
  /// A reconcile process of `gateway` alone (`--gateways 1`: gw-2 is started later, when gw-1 is stopped) on
  /// `site`, with the test hook `hook`.
  static func start(_ site: GatewaySite, _ gateway: String, url: String, hook: String? = nil) async throws
    -> GatewayProcess
  {
    let started = try await ReconcileSeveralGatewaysTests.start(
      site, [gateway], journal: url, environment: hook.map { [gateway: $0] } ?? [:],
      extra: [
        "--firmware", "latest", "--catalog", site.folder + "/catalogue", "--firmware-dir", site.folder + "/firmware",
        "--backoff-base", "0.5", "--bootloader-timeout", "600",
      ])
    return try #require(started.first)
  }

  /// One outdated Pro whose first transfer fails and leaves it in its bootloader
  /// (`ReconcileLeftInBootloaderTests.dfu`), heard by both gateways; gw-1 started alone on `url`, returned once
  /// it has reopened the device's row and stopped itself before the reopened transfer.
  static func stoppedAtTheReopenedTransfer(block: Int, url: String) async throws -> (GatewaySite, GatewayProcess) {
    let site = try GatewaySite(
      count: 1, block: block, gateways: ["gw-1", "gw-2"], firmware: "5.12", dfu: ReconcileLeftInBootloaderTests.dfu
    ) { _, _ in
      -55
    }
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: site.folder + "/catalogue")
    let target = site.address(0)
    let gw1 = try await start(site, "gw-1", url: url, hook: "before-transfer:\(target):4")
    // A reconcile never ends by itself: a hook that never fires would hold the test past its time limit.
    let bound = Task {
      try await Task.sleep(for: .seconds(150))
      gw1.signal(SIGKILL)
    }
    let stopped = await gw1.line { $0.contains("test hook: stopped before transferring \(target)") }
    bound.cancel()
    try #require(stopped, "gw-1 ended before the reopened transfer of \(target):\n\(gw1.tail.text)")
    let text = gw1.tail.text
    #expect(text.contains("\(target): reopened in shared run"), "\(text)")
    #expect(try site.writeLog.counts(what: "firmware").isEmpty, "\(text)")
    return (site, gw1)
  }

  /// The device was installed once, by `installer` when given, and its row in the one firmware run is verified.
  static func expectUpdatedOnce(
    _ site: GatewaySite, _ journal: PostgresJournal, by installer: GatewayProcess? = nil, _ text: String
  ) async throws {
    let target = site.address(0)
    #expect(try site.writeLog.counts(what: "firmware") == [target: 1], "\(text)")
    if let installer {
      let installs = try site.writeLog.writes().filter { $0.address == target && $0.what == "firmware" }
      #expect(installs.map(\.pid) == [installer.process.processIdentifier], "\(installs)")
    }
    #expect(try site.store.loadNewest()[BluetoothAddress(target)!]?.bootloader == nil)
    let runs = try await journal.runs().map(\.id).filter { $0.hasPrefix("reconcile-firmware-") }
    #expect(runs.count == 1, "\(runs)")
    let rows = try await journal.devices(run: try #require(runs.first, "\(text)"))
    #expect(rows.map(\.state) == [.verified], "\(rows)")
  }

  /// gw-1 is killed (SIGKILL) at the reopened transfer, holding the device's lease; gw-2, started then, takes
  /// the device over once the lease has run out and finishes it — installed once, by gw-2's process.
  @Test func aGatewayKilledAtTheReopenedTransferLeavesItToTheOther() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let (site, gw1) = try await Self.stoppedAtTheReopenedTransfer(block: 0x40, url: url)
    gw1.signal(SIGKILL)
    let (status, _) = await gw1.finish()
    #expect(status == SIGKILL)
    let gw2 = try await Self.start(site, "gw-2", url: url)
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let (updated, text) = try await ReconcileFirmwareFaultsTests.settle(site, journal, [gw2])
    #expect(updated, "the device was not updated:\n\(text)")
    #expect(text.contains("taking it over once no other gateway holds it"), "\(text)")
    try await Self.expectUpdatedOnce(site, journal, by: gw2, text)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// gw-1 stays stopped at the reopened transfer past its lease while gw-2 takes the device over and finishes
  /// it; resumed (SIGCONT), gw-1's `transferring` record is refused by the fence, so it sends nothing — the
  /// device installed once, by gw-2's process, and both gateways end cleanly.
  @Test func aGatewayStoppedPastItsLeaseAtTheReopenedTransferDoesNotSendItAgain() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let (site, gw1) = try await Self.stoppedAtTheReopenedTransfer(block: 0x41, url: url)
    let gw2 = try await Self.start(site, "gw-2", url: url)
    var installed = false
    for _ in 0..<240 where !installed {
      try await Task.sleep(for: .milliseconds(500))
      installed = try site.writeLog.counts(what: "firmware").count == 1
    }
    try #require(installed, "gw-2 did not finish the device:\n\(gw2.tail.text)")
    gw1.signal(SIGCONT)
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let (updated, text) = try await ReconcileFirmwareFaultsTests.settle(site, journal, [gw1, gw2])
    #expect(updated, "\(text)")
    try await Self.expectUpdatedOnce(site, journal, by: gw2, text)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// `pg_ctl restart` while gw-1 is stopped at the reopened transfer; resumed, gw-1 reconnects and finishes the
  /// device, or finds it taken over by gw-2, started beside it — installed once either way.
  @Test func theReopenedTransferSurvivesAPostgreSQLRestart() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let (site, gw1) = try await Self.stoppedAtTheReopenedTransfer(block: 0x42, url: url)
    try await server.restart()
    gw1.signal(SIGCONT)
    // Started after the restart: a gateway that cannot open the journal at its start exits 1 at once.
    let gw2 = try await Self.start(site, "gw-2", url: url)
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let (updated, text) = try await ReconcileFirmwareFaultsTests.settle(site, journal, [gw1, gw2])
    #expect(updated, "\(text)")
    try await Self.expectUpdatedOnce(site, journal, text)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
