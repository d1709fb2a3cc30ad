import BeaconCore
import Fleet
import FleetIO
import Foundation
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `dfu update --firmware latest` from a catalogue, run by two gateways on one shared run through a real PostgreSQL
/// journal, on a site of two models: each gateway's survey reads only its own nearest devices (the nearest-gateway
/// rule: it never links to a device the rule gives a live gateway), so each resolves only its own models' packages.
/// One gateway is killed (SIGKILL) where it stops itself just before a device's transfer; the other takes over
/// its devices once their leases run out — devices of a model it never surveyed, whose package it must resolve
/// then (it failed them: "was not seen before the campaign, so no package was resolved for it"). Proof from the
/// simulated devices' shared write log: every device activated exactly one image, its own model's, and the
/// killed gateway's devices got theirs from the survivor's process.
@Suite(.serialized, .timeLimit(.minutes(4))) struct SeveralGatewaysCatalogueTests {
  static let gateways = ["gw-1", "gw-2"]
  /// Even devices: legacy KBeacons (KBN52_SIM, V3.12 → the catalogue's V3.20), nearest gw-1; odd devices: Pros
  /// (KBPro_SIM, 5.12 → 5.14), nearest gw-2. (A device's `ver` reads V3.20 or V5.14, as `ConsecutiveAddressDFUTests`.)
  static let legacy = #""kind": "kbeaconLegacy", "sensor": {"batteryMillivolts": 3100, "temperature": 18.5}"#

  /// The gateways' command line: a catalogue campaign on run "site" of the shared journal. `--timeout 15`: every
  /// link error of a transfer, a response that times out included, counts as a lost link, and four in a row
  /// without progress fail the device. With 5 s, one local run of the whole suite list at parallelism 16 (the
  /// test 26 times slower than alone) failed a device's three attempts on "link lost 4 times", the likeliest
  /// reading being responses slower than 5 s (not reproduced at 9 times slower). A simulated device answers or
  /// drops at once, so the longer bound costs these tests no time.
  static func command(_ site: GatewaySite, url: String, gateway: String, parallel: Int) -> [String] {
    [
      "dfu", "update", "--firmware", "latest", "--catalog", site.folder + "/catalogue", "--firmware-dir",
      site.folder + "/firmware", "--adapter", "sim:\(site.fleet)", "--scan", "2", "--parallel", "\(parallel)",
      "--retry-delay", "0", "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "15", "--state-dir",
      site.state, "--journal", url, "--run", "site", "--lease", "2", "--gateways", "2", "--settle", "60",
      "--gateway", gateway,
    ]
  }

  /// A PostgreSQL database and the two-model site of four devices in `block`, its catalogue (the example plus
  /// KBN52_SIM V3.20) and state directory ready.
  static func site(block: Int) async throws -> (PostgresServer, String, GatewaySite) {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(
      count: 4, block: block, gateways: Self.gateways, firmware: "5.12", kind: { $0 % 2 == 0 ? Self.legacy : nil },
      rssi: { gateway, i in gateway == Self.gateways[i % 2] ? -55 : -75 })
    _ = try ConsecutiveAddressDFUTests.catalogue(root: site.folder)
    try await site.prepareState()
    return (server, url, site)
  }

  /// gw-1 (one link) and gw-2 (two links) started together; gw-1 stops itself at `hook` (`SimulatorPauseHook`),
  /// says a line containing `said`, and is killed there (SIGKILL). Returns gw-2 and what gw-1 said.
  static func gatewaysOneKilled(_ site: GatewaySite, url: String, hook: String, said: String) async throws
    -> (survivor: GatewayProcess, victim: String)
  {
    let victim = try GatewayProcess(
      Self.command(site, url: url, gateway: "gw-1", parallel: 1),
      environment: [SimulatorPauseHook.environmentVariable: hook])
    let survivor = try GatewayProcess(Self.command(site, url: url, gateway: "gw-2", parallel: 2))
    let stopped = await victim.line { $0.contains(said) }
    victim.signal(SIGKILL)
    let (status, text) = await victim.finish()
    try #require(stopped, "gw-1 ended before it stopped at \(hook): \(text)")
    #expect(status == SIGKILL)
    return (survivor, text)
  }

  /// Every device of the site activated one image, by the shared write log; `target`, which a killed gateway left
  /// in its bootloader, got the legacy model's release (V3.20) from `survivor`'s process and left its bootloader;
  /// every row of run "site" ended verified (`text`: the survivor's output).
  static func expectFinishedFromItsBootloader(
    _ target: String, by survivor: GatewayProcess, _ site: GatewaySite, url: String, _ text: String
  ) async throws {
    let installs = try site.writeLog.writes().filter { $0.what == "firmware" }
    let shown = installs.map { "\($0.address) by \($0.pid)" }
    #expect(
      Dictionary(grouping: installs, by: \.address).mapValues(\.count)
        == Dictionary(uniqueKeysWithValues: (0..<site.count).map { (site.address($0), 1) }), "\(shown)\n\(text)")
    let finished = installs.filter { $0.address == target }
    #expect(finished.map(\.pid) == [survivor.process.processIdentifier], "\(shown)")
    #expect(finished.first?.state?.contains("\"ver\":\"V3.20\"") == true, "\(finished)")
    #expect(try site.store.loadNewest()[BluetoothAddress(target)!]?.bootloader == nil)
    try await Self.everyRowVerified(site, url: url, text)
  }

  /// The shared journal's run "site" ends with every device of the site verified (`text`: the survivor's output).
  static func everyRowVerified(_ site: GatewaySite, url: String, _ text: String) async throws {
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let rows = try await journal.devices(run: "site")
    #expect(rows.count == site.count && rows.allSatisfy { $0.state == .verified }, "\(rows)\n\(text)")
    await journal.connection.close()
  }

  @Test func aSurvivorTakesOverAKilledGatewaysDevicesOfAModelItNeverSurveyed() async throws {
    let (server, url, site) = try await Self.site(block: 0x2C)
    let target = site.address(0)
    let (survivor, _) = try await Self.gatewaysOneKilled(
      site, url: url, hook: "before-transfer:\(target)", said: "test hook: stopped before transferring \(target)")

    let (status, text) = await survivor.finish()
    #expect(status == 0, "\(text)")
    // gw-2's survey left gw-1's legacy devices out, and it read their catalogue only once the campaign had begun.
    #expect(text.contains("not read, left to nearer gateways: \(site.address(0)) (gw-1), \(site.address(2)) (gw-1)"))
    let shared = try #require(text.range(of: "run site shared as gateway gw-2"), "\(text)")
    #expect(text[shared.upperBound...].contains("KBN52_SIM.json"), "\(text)")
    // Every device activated one image, its own model's release; gw-1's from gw-2's process.
    let installs = try site.writeLog.writes().filter { $0.what == "firmware" }
    let shown = installs.map { "\($0.address) by \($0.pid)" }
    let addresses = (0..<site.count).map(site.address)
    #expect(
      Dictionary(grouping: installs, by: \.address).mapValues(\.count)
        == Dictionary(uniqueKeysWithValues: addresses.map { ($0, 1) }), "\(shown)\n\(text)")
    for install in installs {
      let release = Int(install.address.suffix(2), radix: 16)! % 2 == 0 ? "V3.20" : "V5.14"
      #expect(install.state?.contains("\"ver\":\"\(release)\"") == true, "\(install.address): \(install.state ?? "")")
    }
    for i in [0, 2] {
      #expect(
        installs.filter { $0.address == site.address(i) }.map(\.pid) == [survivor.process.processIdentifier],
        "\(site.address(i)): \(shown)")
    }
    try await Self.everyRowVerified(site, url: url, text)
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// The same site, gw-1 killed in the middle of a transfer: the device's simulated bootloader saved its first
  /// firmware object (`in-bootloader`), and the device stays in its bootloader with it, as a real one does when its
  /// gateway dies (`SimulatedBootloaderRecord`). gw-2 takes the device over once its lease runs out: its application
  /// is silent, so its identity comes from the shared registry (gw-1 read it), and gw-2 finishes the image from the
  /// bootloader it finds — one install, gw-2's, of the device's own model's release.
  @Test func aSurvivorFinishesADeviceAKilledGatewayLeftInItsBootloader() async throws {
    let (server, url, site) = try await Self.site(block: 0x2D)
    let target = site.address(0)
    let (survivor, victimText) = try await Self.gatewaysOneKilled(
      site, url: url, hook: "in-bootloader:\(target)", said: "test hook: stopped in the bootloader of \(target)")
    // The device's flash, as gw-1 left it: in its bootloader, one object executed.
    let left = try #require(try site.store.loadNewest()[BluetoothAddress(target)!]?.bootloader, "\(victimText)")
    #expect(left.image.count == 4096)

    let (status, text) = await survivor.finish()
    #expect(status == 0, "\(text)")
    try await Self.expectFinishedFromItsBootloader(target, by: survivor, site, url: url, text)
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// The same site, gw-1 alone on run "site" (`--gateways 1`), killed in the middle of device 0's transfer
  /// (`in-bootloader`). gw-2 joins the run only afterwards, naming the site's devices (`--address`): device 0 was
  /// never among its targets, its application is silent, and gw-2 hears only its bootloader, under the name gw-1
  /// gave it, at device 1's address. The run's row says gw-1's visit left it mid-transfer, so gw-2 takes it over
  /// (before, a gateway new to the run only reported it, "this run will not touch it") and finishes the image:
  /// one install, gw-2's, of the device's own model's release, and every other device's once.
  @Test func aGatewayJoiningLaterTakesOverADeviceTheDeadOneLeftInItsBootloader() async throws {
    let (server, url, site) = try await Self.site(block: 0x2F)
    let target = site.address(0)
    // Each started alone: it waits for no other gateway (`--gateways 1`).
    let alone = { (gateway: String, parallel: Int) in
      var command = Self.command(site, url: url, gateway: gateway, parallel: parallel)
      command[command.firstIndex(of: "--gateways")! + 1] = "1"
      return command
    }
    let victim = try GatewayProcess(
      alone("gw-1", 1), environment: [SimulatorPauseHook.environmentVariable: "in-bootloader:\(target)"])
    let stopped = await victim.line { $0.contains("test hook: stopped in the bootloader of \(target)") }
    victim.signal(SIGKILL)
    let (victimStatus, victimText) = await victim.finish()
    try #require(stopped, "gw-1 ended before it reached \(target)'s bootloader: \(victimText)")
    #expect(victimStatus == SIGKILL)
    #expect(try site.store.loadNewest()[BluetoothAddress(target)!]?.bootloader != nil, "\(victimText)")

    let named = (0..<site.count).flatMap { ["--address", site.address($0)] }
    let survivor = try GatewayProcess(alone("gw-2", 2) + named)
    let (status, text) = await survivor.finish()
    #expect(status == 0, "\(text)")
    #expect(text.contains("\(target)  not seen, but its DFU bootloader is advertising (Dfu"), "\(text)")
    #expect(text.contains("taking it over once no other gateway holds it"), "\(text)")
    try await Self.expectFinishedFromItsBootloader(target, by: survivor, site, url: url, text)
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
