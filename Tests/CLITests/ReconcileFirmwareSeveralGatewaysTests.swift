import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --firmware latest` on a site two gateways share through a real PostgreSQL journal: real
/// `beacon-provision reconcile` processes, each nearest half of eight outdated KBeacon Pros with consecutive
/// addresses (the other hears each device 20 dB weaker), one catalogue folder and one firmware cache. The
/// firmware checks go through the profile's shared firmware run, so every device is configured once and
/// updated once — counted from the simulated devices' shared write log (every `cfg` and every image a
/// device activated, whichever process served it) — each by the gateway nearest it, and the gateways then
/// leave the site alone.
@Suite(.serialized, .timeLimit(.minutes(6))) struct ReconcileFirmwareSeveralGatewaysTests {
  @Test func twoGatewaysUpdateEachDeviceOnceThroughTheSharedFirmwareRun() async throws {
    let gateways = ["gw-1", "gw-2"]
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 8, block: 0x24, gateways: gateways, firmware: "5.12") { gateway, i in
      gateway == gateways[i % 2] ? -55 : -75
    }
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    // A 10 s lease, not the suite's 3 s: no gateway dies here, so a heartbeat held up on a loaded machine
    // (the sanitizer pass, 16 tests at once on two cores) must not hand a live gateway's devices over.
    let processes = try await ReconcileSeveralGatewaysTests.start(
      site, gateways, journal: url, lease: 10,
      extra: ["--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware"])
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)

    // Until every device activated an image and no row of any reconcile run is open; then three windows more.
    var updated = false
    for _ in 0..<480 where !updated {
      try await Task.sleep(for: .milliseconds(500))
      let installs = try site.writeLog.counts(what: "firmware").count
      let open = try await ReconcileSeveralGatewaysTests.rows(journal).filter { !$0.state.isFinal }
      updated = installs == site.count && open.isEmpty
    }
    try await Task.sleep(for: .seconds(3))
    for gateway in processes { gateway.signal(SIGTERM) }
    var texts: [String] = []
    for gateway in processes {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
      texts.append(text)
    }
    let tails = texts.joined(separator: "\n----\n")
    #expect(updated, "not every device was updated:\n\(tails)")

    let addresses = (0..<site.count).map(site.address)
    let installs = try site.writeLog.counts(what: "firmware")
    #expect(installs == Dictionary(uniqueKeysWithValues: addresses.map { ($0, 1) }), "\(installs)\n\(tails)")
    #expect(try site.notWrittenOnce() == [:], "devices not configured exactly once (address: writes)")

    // The journal: one firmware run, every device verified in it by the gateway nearest it.
    let runs = try await journal.runs().map(\.id).filter { $0.hasPrefix("reconcile-firmware-") }
    #expect(runs.count == 1, "\(runs)")
    let rows = try await journal.devices(run: try #require(runs.first))
    #expect(rows.count == site.count && rows.allSatisfy { $0.state == .verified }, "\(rows)")
    let installedBy = try await journal.connection.session { s in
      try s.query("SELECT address, gateway FROM bp_device WHERE run_id LIKE 'reconcile-firmware-%'").rows
    }
    for row in installedBy {
      let index = try #require(addresses.firstIndex(of: row[0] ?? ""))
      #expect(row[1] == gateways[index % 2], "\(row)\n\(tails)")
    }
    // Each gateway learnt of the other's updates rather than connecting to those devices, and its survey
    // (the catalogue campaign's read before any package is fetched) left out some of the other's nearest
    // devices and never one of its own: started together, the gateways join the firmware run and wait for
    // each other before surveying. Not all of the other's: a device leaves a survey only once the other
    // gateway has recorded hearing it nearer, and under load its first windows can miss one — the survey
    // then reads that device too, which costs a read, never a write (the exactly-once check above).
    for (index, text) in texts.enumerated() {
      #expect(text.contains("firmware updated by another gateway"), "\(text)")
      let left = text.split(separator: "\n").filter { $0.contains("firmware survey: not read, left to nearer") }
      #expect(!left.isEmpty, "\(gateways[index]) surveyed every device: \(text)")
      let others = addresses.enumerated().filter { $0.offset % 2 != index }.map(\.element)
      let own = addresses.enumerated().filter { $0.offset % 2 == index }.map(\.element)
      for line in left {
        for address in own {
          #expect(!line.contains(address), "\(gateways[index]) left out its own \(address): \(line)")
        }
      }
      #expect(others.contains { address in left.contains { $0.contains(address) } }, "\(left)")
    }
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// A gateway stopped (SIGSTOP) just before one of its devices' transfer, longer than its lease
  /// (`SimulatorPauseHook` `before-transfer`): the other gateway takes the device over in the firmware run
  /// and updates it; resumed, the stopped one finds its lease gone and sends nothing. Every device updated
  /// once, the device in question by the other gateway's process, as the write log records who installed it.
  @Test func aGatewayPausedBeforeATransferPastItsLeaseDoesNotUpdateItsLostDevice() async throws {
    let gateways = ["gw-1", "gw-2"]
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 4, block: 0x25, gateways: gateways, firmware: "5.12") { gateway, i in
      gateway == gateways[i % 2] ? -55 : -75
    }
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let target = site.address(2)
    let processes = try await ReconcileSeveralGatewaysTests.start(
      site, gateways, journal: url, parallel: 1, lease: 2, environment: ["gw-1": "before-transfer:\(target)"],
      extra: ["--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware"])
    let (paused, other) = (processes[0], processes[1])
    let stopped = await paused.line { $0.contains("test hook: stopped before transferring \(target)") }
    if !stopped { Issue.record("gw-1 ended before it stopped at \(target): \(await paused.finish().text)") }
    try #require(stopped)
    #expect(await paused.isStopped(), "gw-1 said it stopped but is not")
    var taken = false
    for _ in 0..<120 where !taken {
      try await Task.sleep(for: .milliseconds(500))
      taken = try site.writeLog.counts(what: "firmware")[target] == 1
    }
    #expect(taken, "gw-2 did not update \(target): \(other.tail.text)")
    paused.signal(SIGCONT)
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    var done = false
    for _ in 0..<240 where !done {
      try await Task.sleep(for: .milliseconds(500))
      let open = try await ReconcileSeveralGatewaysTests.rows(journal).filter { !$0.state.isFinal }
      done = try site.writeLog.counts(what: "firmware").count == site.count && open.isEmpty
    }
    try await Task.sleep(for: .seconds(3))
    for gateway in processes { gateway.signal(SIGTERM) }
    for gateway in processes {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
    let addresses = (0..<site.count).map(site.address)
    #expect(try site.writeLog.counts(what: "firmware") == Dictionary(uniqueKeysWithValues: addresses.map { ($0, 1) }))
    let installs = try site.writeLog.writes().filter { $0.address == target && $0.what == "firmware" }
    #expect(installs.map(\.pid) == [other.process.processIdentifier], "\(installs)")
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
