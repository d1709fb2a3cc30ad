import CampaignPipeline
import Fleet
import FleetIO
import Foundation
import JSON
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --firmware latest --rollout …` on a site two gateways share through a real PostgreSQL journal:
/// one rollout for the site, kept in the journal (`PostgresJournal.updateShared`), which both gateways admit
/// into. Six outdated KBeacon Pros with consecutive addresses, device i nearest gateway i % 2. A rollout kept
/// per gateway would run a canary on each gateway: these tests count one.
@Suite(.serialized, .timeLimit(.minutes(6))) struct ReconcileRolloutSeveralGatewaysTests {
  static let gateways = ["gw-1", "gw-2"]

  static func start(block: Int, url: String, rollout: String, dfu: String? = nil) async throws
    -> (GatewaySite, [GatewayProcess])
  {
    let site = try GatewaySite(count: 6, block: block, gateways: gateways, firmware: "5.12", dfu: dfu) { g, i in
      g == gateways[i % 2] ? -55 : -75
    }
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let processes = try await ReconcileSeveralGatewaysTests.start(
      site, gateways, journal: url,
      extra: [
        "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware", "--rollout",
        rollout, "--backoff-base", "30",
      ])
    return (site, processes)
  }

  /// The site's rollout as the journal holds it (one row under the `rollout` key prefix).
  static func rollout(_ journal: PostgresJournal) async throws -> ReconcileRollout? {
    let values = try await journal.connection.session { s in
      try s.query("SELECT value FROM bp_shared_state WHERE key LIKE 'rollout%'").rows.compactMap { $0[0] }
    }
    #expect(values.count <= 1, "one rollout for the site: \(values)")
    return try values.first.map { try JSONFileDecoder(file: "row").decode(ReconcileRollout.self, from: Array($0.utf8)) }
  }

  static func stop(_ processes: [GatewayProcess]) async -> String {
    for gateway in processes { gateway.signal(SIGTERM) }
    var texts: [String] = []
    for gateway in processes {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
      texts.append(text)
    }
    return texts.joined(separator: "\n----\n")
  }

  /// canary=1,waves=50%,100%: the canary is one device of the site, then the wave to half, then the rest, each
  /// stage's members counted in the journal's rollout;
  /// every device updated once, and each stage's end said once, by whichever gateway ended it.
  @Test func twoGatewaysStageOneRolloutForTheSite() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let (site, processes) = try await Self.start(block: 0x28, url: url, rollout: "canary=1,waves=50%,100%")
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    var complete = false
    for _ in 0..<240 where !complete {
      try await Task.sleep(for: .milliseconds(500))
      let installs = try site.writeLog.counts(what: "firmware").count
      let stage = try await Self.rollout(journal)?.stage ?? 0
      complete = installs == site.count && stage > 2
    }
    try await Task.sleep(for: .seconds(3))
    let text = await Self.stop(processes)
    #expect(complete, "the rollout did not complete:\n\(text)")
    let addresses = (0..<site.count).map(site.address)
    let installs = try site.writeLog.counts(what: "firmware")
    #expect(installs == Dictionary(uniqueKeysWithValues: addresses.map { ($0, 1) }), "\(installs)\n\(text)")
    let rollout = try #require(try await Self.rollout(journal))
    // The stages as the plan cuts six devices: the canary's 1, half the other 5 rounded up (3), the last 2.
    let sizes = try RolloutPlan(rollout: "canary=1,waves=50%,100%", maxFailures: nil).partition(site.count)
      .map(\.range.count)
    #expect(sizes == [1, 3, 2])
    for (stage, size) in sizes.enumerated() {
      #expect(rollout.members.values.filter { $0.stage == stage }.count == size, "stage \(stage): \(rollout)")
    }
    #expect(rollout.members.count == site.count && rollout.members.values.allSatisfy { $0.failed == false })
    for stage in ["canary", "wave 1", "wave 2"] {
      let ended = text.components(separatedBy: "rollout: the \(stage) ended").count - 1
      #expect(ended == 1, "the \(stage)'s end said \(ended) times:\n\(text)")
    }
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// The site's rollout under way (gw-1, hearing device 0 only, updated its canary and stopped): a gateway
  /// started with another `--rollout` is refused its part, and one started without `--rollout` holds its due
  /// devices — neither installs anything, and each says why.
  @Test func gatewaysWithAnotherPlanOrNoneDoNotGoPastTheSitesRollout() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let names = ["gw-1", "gw-2", "gw-3"]
    let site = try GatewaySite(count: 4, block: 0x2A, gateways: names, firmware: "5.12") { g, i in
      (g == "gw-1") == (i == 0) ? -55 : nil
    }
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let firmware = ["--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware"]
    let first = try await ReconcileSeveralGatewaysTests.start(
      site, ["gw-1"], journal: url, extra: firmware + ["--rollout", "canary=1,waves=100%"])
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    var canaryEnded = false
    for _ in 0..<240 where !canaryEnded {
      try await Task.sleep(for: .milliseconds(500))
      canaryEnded = try await Self.rollout(journal)?.stage == 1
    }
    let firstText = await Self.stop(first)
    try #require(canaryEnded, "gw-1's canary did not end:\n\(firstText)")
    #expect(try site.writeLog.counts(what: "firmware") == [site.address(0): 1])

    let other = try GatewayProcess(
      [
        "reconcile", site.profile, "--adapter", "sim:\(site.fleet)", "--window", "1", "--recheck", "30d", "--state-dir",
        site.state, "--journal", url, "--gateway", "gw-2", "--lease", "3",
      ] + firmware + ["--rollout", "canary=2,waves=100%"])
    let none = try GatewayProcess(
      [
        "reconcile", site.profile, "--adapter", "sim:\(site.fleet)", "--window", "1", "--recheck", "30d", "--state-dir",
        site.state, "--journal", url, "--gateway", "gw-3", "--lease", "3",
      ] + firmware)
    // Both watched at once (a line is only seen by a watch already waiting for it), for two minutes at most.
    let watchdog = Task {
      try await Task.sleep(for: .seconds(120))
      for gateway in [other, none] { gateway.signal(SIGTERM) }
    }
    async let refused = other.line { $0.contains("this gateway's is canary=2,waves=100%") }
    async let held = none.line { $0.contains("firmware due, the site's rollout (--rollout canary=1,waves=100%") }
    let (wasRefused, wasHeld) = await (refused, held)
    watchdog.cancel()
    try await Task.sleep(for: .seconds(3))
    let text = await Self.stop([other, none])
    #expect(wasRefused && wasHeld, "\(text)")
    #expect(try site.writeLog.counts(what: "firmware") == [site.address(0): 1], "\(text)")
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// Every device's update fails (its bootloader drops the link past 1,000 bytes): the site's one canary fails,
  /// the rollout stops for both gateways, and no other device is ever put into the firmware run.
  @Test func aFailedCanaryStopsTheRolloutOnEveryGateway() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let failing = #"{"inactivityTimeoutMs": 500, "faults": {"dropLinkAtByte": 1000, "always": true}}"#
    let (site, processes) = try await Self.start(
      block: 0x29, url: url, rollout: "canary=1,waves=100%", dfu: failing)
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    var stopped = false
    for _ in 0..<240 where !stopped {
      try await Task.sleep(for: .milliseconds(500))
      stopped = try await Self.rollout(journal)?.stopped != nil
    }
    // Windows more, in which both gateways see the stop and hold their due devices back.
    try await Task.sleep(for: .seconds(4))
    let text = await Self.stop(processes)
    #expect(stopped, "the rollout did not stop:\n\(text)")
    #expect(try site.writeLog.counts(what: "firmware").isEmpty)
    let runs = try await journal.runs().map(\.id).filter { $0.hasPrefix("reconcile-firmware-") }
    #expect(runs.count == 1, "\(runs)")
    let rows = try await journal.devices(run: try #require(runs.first))
    #expect(rows.count == 1 && rows.first?.state == .failed, "only the canary was tried: \(rows)\n\(text)")
    #expect(text.components(separatedBy: "rollout stopped after the canary").count > 2, "\(text)")
    for part in text.components(separatedBy: "\n----\n") {
      #expect(part.contains("firmware due, rollout stopped after the canary"), "a gateway went on: \(part)")
    }
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }

  /// The rollout is keyed by the profile's content. After the site's canary failed (on gw-1) and the profile was
  /// edited, the stop carries over to gw-2, which has a state directory of its own, so what it knows of the stop
  /// is the site's: without `--rollout` it holds its due devices, with it it admits no new canary, and without it
  /// again it holds them for the new rollout's stop — counted as the devices the firmware runs tried, from the
  /// journal — until `--resume-rollout`, which goes on to the next wave and resumes the rollout from before the
  /// edit too. (Before, the edited profile's rollout started afresh with a new canary of the release that had
  /// failed, and a gateway without `--rollout` sent it to every device.)
  @Test func aStopCarriesOverToTheRolloutOfTheEditedProfileUntilResumed() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let failing = #"{"inactivityTimeoutMs": 500, "faults": {"dropLinkAtByte": 1000, "always": true}}"#
    let site = try GatewaySite(count: 3, block: 0x2B, gateways: ["gw-1", "gw-2"], firmware: "5.12", dfu: failing) {
      _, _ in -55
    }
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let firmware = [
      "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware", "--backoff-base",
      "30",
    ]
    let rollout = ["--rollout", "canary=1,waves=100%"]
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    /// Devices the site's firmware runs tried (one row each per run).
    let tried = { @Sendable () async throws -> Int in
      var rows = 0
      for run in try await journal.runs().map(\.id) where run.hasPrefix("reconcile-firmware-") {
        rows += try await journal.devices(run: run).count
      }
      return rows
    }
    let first = try await ReconcileSeveralGatewaysTests.start(site, ["gw-1"], journal: url, extra: firmware + rollout)
    var stopped = false
    for _ in 0..<240 where !stopped {
      try await Task.sleep(for: .milliseconds(500))
      stopped = try await Self.rollout(journal)?.stopped != nil
    }
    let firstText = await Self.stop(first)
    try #require(stopped, "the canary did not stop the rollout:\n\(firstText)")
    #expect(try await tried() == 1)
    let before = try #require(try await journal.sharedValues(prefix: "rollout\n").keys.first)

    // The edit: another major number, so a new profile fingerprint and a new rollout key.
    let profile = try String(contentsOfFile: site.profile, encoding: .utf8)
    try profile.replacingOccurrences(of: #""major": 8"#, with: #""major": 9"#).write(
      toFile: site.profile, atomically: true, encoding: .utf8)
    let other = site.folder + "/gw-2-state"
    let gw2 = { (extra: [String]) throws -> GatewayProcess in
      try GatewayProcess(
        [
          "reconcile", site.profile, "--adapter", "sim:\(site.fleet)", "--window", "1", "--recheck", "30d",
          "--state-dir", other, "--journal", url, "--gateway", "gw-2", "--lease", "3",
        ] + firmware + extra)
    }
    for (extra, said) in [
      ([], "firmware due, the site's rollout of this firmware stopped (rollout stopped after the canary"),
      (rollout, "(before the profile changed; start reconcile with --resume-rollout to go on)"),
      ([], "firmware due, the site's rollout stopped (rollout stopped after the canary"),
    ] {
      let gateway = try gw2(extra)
      let watchdog = Task {
        try await Task.sleep(for: .seconds(120))
        gateway.signal(SIGTERM)
      }
      let held = await gateway.line { $0.contains(said) }
      watchdog.cancel()
      // Windows more, in which a gateway that went on would try a device.
      try await Task.sleep(for: .seconds(3))
      let text = await Self.stop([gateway])
      #expect(held, "\(extra): \(text)")
      #expect(try await tried() == 1, "\(extra): no device tried after the edit:\n\(text)")
    }

    let resumed = try gw2(rollout + ["--resume-rollout"])
    var wentOn = false
    for _ in 0..<240 where !wentOn {
      try await Task.sleep(for: .milliseconds(500))
      wentOn = try await tried() > 1
    }
    let text = await Self.stop([resumed])
    #expect(wentOn, "--resume-rollout did not go on to the next wave:\n\(text)")
    // The rollout from before the edit was resumed too, so its stop holds no later edit back.
    let old = try await journal.sharedValues(prefix: before)[before]
    #expect(try old.map(ReconcileLoop.decodeRollout)?.stopped == nil, "\(old ?? "no row")")
    #expect(try site.writeLog.counts(what: "firmware").isEmpty)
    #expect(
      try SimulatorStateStore(stateDirectory: other, fleetFile: site.fleet).writeLog.counts(what: "firmware").isEmpty)
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
