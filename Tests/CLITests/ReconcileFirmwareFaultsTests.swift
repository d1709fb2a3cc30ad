import BeaconCore
import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --firmware latest` on a site two gateways share through a real PostgreSQL journal, under the
/// faults the configuration pass is already tested through (`ReconcileSeveralGatewaysTests`): one gateway
/// killed with SIGKILL at a transfer, and the server restarted while a gateway is at a transfer. Each fault
/// comes where the gateway stops itself (`SimulatorPauseHook` `before-transfer`), not on a log line. Every
/// device ends updated exactly once, counted from the simulated devices' shared write log (an image a device
/// activated, whichever process served it, with that process's pid).
@Suite(.serialized, .timeLimit(.minutes(8))) struct ReconcileFirmwareFaultsTests {
  static let gateways = ["gw-1", "gw-2"]

  /// Six outdated Pros with consecutive addresses, device i nearest gateway i % 2, the catalogue folder and
  /// firmware cache; the two reconcile gateways started on `url`, gw-1 stopping itself where `hook` says for
  /// `stopAt`'s address (by default before transferring to it; a device of its own). `--bootloader-timeout 15`:
  /// a device whose neighbour is in its bootloader when the survivor looks (gw-1's, until gw-2 takes it over)
  /// is tried again 15 s later, not 130 s, which was past `settle`'s bound (seen once under AddressSanitizer
  /// on a loaded machine).
  static func start(
    block: Int, url: String, stopAt index: Int, hook: (String) -> String = { "before-transfer:\($0)" }
  ) async throws -> (GatewaySite, [GatewayProcess]) {
    let site = try GatewaySite(count: 6, block: block, gateways: gateways, firmware: "5.12") { gateway, i in
      gateway == gateways[i % 2] ? -55 : -75
    }
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let processes = try await start(site, gateways, url: url, environment: ["gw-1": hook(site.address(index))])
    return (site, processes)
  }

  /// The reconcile processes of `started` (a part of `gateways`, each waiting for them all) on `site`.
  static func start(
    _ site: GatewaySite, _ started: [String], url: String, environment: [String: String] = [:]
  ) async throws -> [GatewayProcess] {
    try await ReconcileSeveralGatewaysTests.start(
      site, started, journal: url, environment: environment,
      extra: [
        "--firmware", "latest", "--catalog", site.folder + "/catalogue", "--firmware-dir", site.folder + "/firmware",
        "--bootloader-timeout", "15",
      ])
  }

  /// Waits (up to 4 min: a bound on a hang; seconds alone) until every device activated an image and no row of
  /// any reconcile run is open, then three windows more; stops `gateways` with SIGTERM, expecting each to exit 0. Returns whether every device
  /// was updated, and the gateways' standard error.
  static func settle(_ site: GatewaySite, _ journal: PostgresJournal, _ gateways: [GatewayProcess]) async throws
    -> (updated: Bool, text: String)
  {
    var updated = false
    for _ in 0..<480 where !updated {
      try await Task.sleep(for: .milliseconds(500))
      let open = try await ReconcileSeveralGatewaysTests.rows(journal).filter { !$0.state.isFinal }
      updated = try site.writeLog.counts(what: "firmware").count == site.count && open.isEmpty
    }
    try await Task.sleep(for: .seconds(3))
    for gateway in gateways { gateway.signal(SIGTERM) }
    var texts: [String] = []
    for gateway in gateways {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
      texts.append(text)
    }
    return (updated, texts.joined(separator: "\n----\n"))
  }

  /// Each device's firmware installs and configuration writes, as the shared write log counts them: once each.
  static func expectEachOnce(_ site: GatewaySite, _ text: String) throws {
    let addresses = (0..<site.count).map(site.address)
    let installs = try site.writeLog.counts(what: "firmware")
    #expect(installs == Dictionary(uniqueKeysWithValues: addresses.map { ($0, 1) }), "\(installs)\n\(text)")
    #expect(try site.notWrittenOnce() == [:], "devices not configured exactly once (address: writes)")
  }

  /// The journal holds one firmware run, in which `target` ended verified by gw-2.
  static func expectVerifiedByGW2(_ target: String, _ journal: PostgresJournal) async throws {
    let runs = try await journal.runs().map(\.id).filter { $0.hasPrefix("reconcile-firmware-") }
    let run = try #require(runs.first, "\(runs)")
    #expect(runs.count == 1, "\(runs)")
    #expect(try await journal.device(run: run, address: target)?.state == .verified)
    let by = try await journal.connection.session { s in
      try s.query("SELECT gateway FROM bp_device WHERE run_id = '\(run)' AND address = '\(target)'").rows
    }
    #expect(by == [["gw-2"]], "\(by)")
  }

  /// gw-1 is killed (SIGKILL) stopped just before its device 2's transfer, holding that device's lease in the
  /// firmware run: once the lease runs out, gw-2 takes over every device gw-1 left, and updates each once —
  /// device 2 by gw-2's process. Nothing gw-1 installed before it died is installed again.
  @Test func aGatewayKilledAtATransferLeavesItsDevicesToTheOtherEachUpdatedOnce() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let (site, processes) = try await Self.start(block: 0x26, url: url, stopAt: 2)
    let (victim, survivor) = (processes[0], processes[1])
    let target = site.address(2)
    let stopped = await victim.line { $0.contains("test hook: stopped before transferring \(target)") }
    victim.signal(SIGKILL)
    let (victimStatus, victimText) = await victim.finish()
    try #require(stopped, "gw-1 ended before it reached \(target): \(victimText)")
    #expect(victimStatus == SIGKILL)

    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let (updated, text) = try await Self.settle(site, journal, [survivor])
    #expect(updated, "not every device was updated:\n\(text)")
    try Self.expectEachOnce(site, text)
    let installs = try site.writeLog.writes().filter { $0.address == target && $0.what == "firmware" }
    #expect(installs.map(\.pid) == [survivor.process.processIdentifier], "\(installs)")
    // gw-2 visited the devices of gw-1's it updated in the shared firmware run, as the journal shows.
    try await Self.expectVerifiedByGW2(target, journal)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// gw-1, alone on the site, is killed (SIGKILL) in the middle of its device 2's transfer: the device's
  /// simulated bootloader has executed the init command (`in-bootloader:…:0`; the example catalogue's image is
  /// one object) and waits there, its application silent, advertising the name gw-1 gave it. gw-2, started
  /// afterwards, hears only that bootloader for device 2; the firmware run's row says gw-1's visit left the
  /// device mid-transfer, so gw-2 takes it over and finishes the image — at once, not after the bootloader's
  /// own two-minute timeout brings the old application back, as `reconcile` did before (a gateway running
  /// beside gw-1 has the device in its own pass already: `aGatewayKilledAtATransfer…`). Every device
  /// installed once, device 2 by gw-2's process.
  @Test func aGatewayStartedLaterFinishesTheDeviceADeadOneLeftInItsBootloader() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 6, block: 0x2E, gateways: Self.gateways, firmware: "5.12") { gateway, i in
      gateway == Self.gateways[i % 2] ? -55 : -75
    }
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: site.folder + "/catalogue")
    let target = site.address(2)
    let victim = try await Self.start(site, ["gw-1"], url: url, environment: ["gw-1": "in-bootloader:\(target):0"])[0]
    // A reconcile never ends by itself: a hook that never fires would hold the test past its time limit.
    let bound = Task {
      try await Task.sleep(for: .seconds(150))
      victim.signal(SIGKILL)
    }
    let stopped = await victim.line { $0.contains("test hook: stopped in the bootloader of \(target)") }
    bound.cancel()
    victim.signal(SIGKILL)
    let (victimStatus, victimText) = await victim.finish()
    try #require(stopped, "gw-1 ended before it reached \(target)'s bootloader: \(victimText)")
    #expect(victimStatus == SIGKILL)
    let left = try #require(try site.store.loadNewest()[BluetoothAddress(target)!]?.bootloader, "\(victimText)")
    #expect(left.image.isEmpty)

    let survivor = try await Self.start(site, ["gw-2"], url: url)[0]
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let (updated, text) = try await Self.settle(site, journal, [survivor])
    #expect(updated, "not every device was updated:\n\(text)")
    try Self.expectEachOnce(site, text)
    #expect(text.contains("firmware: \(target)  not seen, but its DFU bootloader is advertising"), "\(text)")
    #expect(text.contains("taking it over once no other gateway holds it"), "\(text)")
    let installs = try site.writeLog.writes().filter { $0.address == target && $0.what == "firmware" }
    #expect(installs.map(\.pid) == [survivor.process.processIdentifier], "\(installs)")
    #expect(try site.store.loadNewest()[BluetoothAddress(target)!]?.bootloader == nil)
    try await Self.expectVerifiedByGW2(target, journal)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// `pg_ctl restart` while gw-1 is stopped just before its device 2's transfer; resumed (SIGCONT), it
  /// reconnects and goes on, or finds the device taken over. Either way every device is updated once and the
  /// firmware run ends with every row settled.
  @Test func twoGatewaysUpdateEachDeviceOnceThroughAPostgreSQLRestart() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let (site, processes) = try await Self.start(block: 0x27, url: url, stopAt: 2)
    let target = site.address(2)
    let stopped = await processes[0].line { $0.contains("test hook: stopped before transferring \(target)") }
    try #require(stopped, "gw-1 ended before it reached \(target):\n\(processes[0].tail.text)")
    try await server.restart()
    processes[0].signal(SIGCONT)

    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let (updated, text) = try await Self.settle(site, journal, processes)
    #expect(updated, "not every device was updated:\n\(text)")
    try Self.expectEachOnce(site, text)
    let runs = try await journal.runs().map(\.id).filter { $0.hasPrefix("reconcile-firmware-") }
    #expect(runs.count == 1, "\(runs)")
    let rows = try await journal.devices(run: try #require(runs.first))
    #expect(rows.count == site.count && rows.allSatisfy { $0.state == .verified }, "\(rows)")
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
