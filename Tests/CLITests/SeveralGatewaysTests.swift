import Fleet
import FleetIO
import Foundation
import Simulator
import Synchronization
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// The acceptance run of several gateways sharing one campaign: three `beacon-provision apply` gateway processes on one simulated site share
/// a run through a real PostgreSQL server. Each gateway hears its own part of the 60-device site (overlaps,
/// different RSSI); one is killed with SIGKILL mid-campaign. Every device ends updated exactly once (the
/// simulated devices' shared write log, `SimulatorWriteLog`), by a gateway that heard it best among those alive, and the
/// journal agrees with the devices; `campaign status` and `audit --journal` then show the whole site.
///
/// The kill is made deterministic by the test hook (`SimulatorPauseHook`): gw-1 stops itself just before it
/// journals the write of `faulty`, a device only it hears well, and is killed there — so that device is always
/// left leased (5 s, read before the kill) and unfinished, whatever the load (an earlier version killed gw-1 on a log line, which a slow
/// ASan run could see after the lease had moved on). `faulty` also drops the link on its first configuration
/// write: the survivor that takes it over gets that dropped write first (the fault is the device's), retries
/// at once, and writes it once.
@Suite(.timeLimit(.minutes(5))) struct SeveralGatewaysTests {
  static let count = 60
  static let gateways = ["gw-1", "gw-2", "gw-3"]
  /// Nearest gw-1, heard by gw-2 20 dB weaker, not by gw-3 (3 % 3 == 0, 3 % 4 != 0).
  static let faulty = 3
  static func address(_ i: Int) -> String { String(format: "DD:34:02:07:E0:%02X", i) }

  /// What each gateway hears: device i is nearest gateway i % 3 (-55…-59 dBm); the next gateway hears it
  /// 20 dB weaker; every fourth device the third gateway hears within the 6 dB margin of the nearest (-58).
  static func heard() -> [String: [String: Int]] {
    var views: [String: [String: Int]] = [:]
    for i in 0..<count {
      views[gateways[i % 3], default: [:]][address(i)] = -55 - i % 5
      views[gateways[(i + 1) % 3], default: [:]][address(i)] = -77
      if i % 4 == 0 { views[gateways[(i + 2) % 3], default: [:]][address(i)] = -58 }
    }
    return views
  }

  static func site() throws -> (folder: String, fleet: String, profile: String) {
    let folder = try LocalTools.temporaryDirectory("gateways")
    let devices = (0..<count).map { i in
      let fault = i == Self.faulty ? #", "kbeacon": {"dropLinkOnWrites": 1}"# : ""
      return
        #"{"address": "\#(address(i))", "kind": "kbeaconPro", "name": "KBPro_G\#(i)", "intervalMs": 200, "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}\#(fault)}"#
    }
    let views = String(decoding: try JSONEncoder().encode(heard()), as: UTF8.self)
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))], "gateways": \#(views)}"#
      .write(toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    let rows = ["address,minor"] + (0..<count).map { "\(address($0)),\(2000 + $0)" }
    try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    let desired =
      #""desired": {"name": "hall-{{minor}}", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": "{{minor}}"}]}"#
    try #"{"version": 1, "inventory": "inventory.csv", \#(desired)}"#.write(
      toFile: folder + "/site.json", atomically: true, encoding: .utf8)
    return (folder, folder + "/fleet.json", folder + "/site.json")
  }

  @Test func threeGatewaysUpdateEveryDeviceOnceAndFinishAKilledOnesDevices() async throws {
    // Stopped at the end; on a failed `#require` its deinit stops it.
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let (folder, fleet, profile) = try Self.site()
    let state = folder + "/state"
    var processes: [(ChildProcess, LogTail)] = []
    for gateway in Self.gateways {
      let arguments = [
        "apply", profile, "--adapter", "sim:\(fleet)", "--scan", "2", "--parallel", "2",
        "--retry-delay", "0",
        "--state-dir", state, "--journal", url, "--run", "site", "--gateway", gateway, "--gateways", "3", "--settle",
        "120",
        "--lease", "5", "-v",
      ]
      let pause =
        gateway == "gw-1"
        ? [SimulatorPauseHook.environmentVariable: "before-write:\(Self.address(Self.faulty))"] : [:]
      let child = try ChildProcess.start(
        ApplyCrashTests.binary, arguments, environment: pause, output: .discarded)
      processes.append((child, LogTail()))
    }
    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "test")

    // gw-1: stopped by the hook before it writes the faulty device (that device's lease held), SIGKILL.
    let (victim, victimTail) = processes[0]
    for await line in victim.errors! {
      victimTail.add(line)
      if line.contains("test hook: stopped before writing \(Self.address(Self.faulty))") { break }
    }
    try #require(
      victim.process.isRunning,
      "gw-1 finished (status \(victim.process.terminationStatus)) before it could be killed:\n\(victimTail.text)")
    // What gw-1 held unfinished when it stopped (its leases outlive it until they expire), read before the kill.
    let heldAtKill = try await journal.connection.session {
      try $0.query(
        """
        SELECT l.address FROM bp_lease l JOIN bp_device d ON d.run_id = l.run_id AND d.address = l.address
          WHERE l.gateway = 'gw-1' AND d.state NOT IN ('verified', 'compliant', 'skipped')
        """
      ).rows.compactMap { $0[0] }
    }
    kill(victim.pid, SIGKILL)
    _ = await victim.wait()
    #expect(heldAtKill.contains(Self.address(Self.faulty)))
    for (child, tail) in processes.dropFirst() {
      let lines = child.errors!
      let drained = Task { for await line in lines { tail.add(line) } }
      let status = await child.wait()
      await drained.value
      // Its last lines say why, should it fail (seen once in a loaded ASan run, with no output kept).
      #expect(status == 0, "\(child.process.arguments?.joined(separator: " ") ?? ""):\n\(tail.text)")
    }

    // The devices: each written exactly once, as the shared write log every gateway process appends to
    // says (the state file's counters cannot show two processes' writes of one device: the last save wins).
    let writes = try SimulatorStateStore(stateDirectory: state, fleetFile: fleet).writeLog.counts()
    #expect(writes.count == Self.count)
    #expect(writes.values.allSatisfy { $0 == 1 }, "not written exactly once: \(writes.filter { $0.value != 1 })")
    // The journal agrees: every device finished with one write, and what gw-1 held unfinished when killed
    // was finished by another gateway.
    let rows = try await journal.devices(run: "site")
    #expect(rows.count == Self.count)
    #expect(
      rows.allSatisfy { $0.state == .verified && $0.writes == 1 },
      "\(rows.filter { $0.state != .verified || $0.writes != 1 })")
    let status = try #require(try await journal.status(run: "site", leaseSeconds: 5))
    let handler = Dictionary(uniqueKeysWithValues: status.devices.map { ($0.address, $0.gateway ?? "") })
    #expect(heldAtKill.allSatisfy { handler[$0] != "gw-1" })
    // Each by a gateway that heard it best, within the margin, among those alive: gw-1 counts only for the
    // devices it finished itself.
    let views = Self.heard()
    for i in 0..<Self.count {
      let a = Self.address(i)
      let by = try #require(handler[a])
      let mine = try #require(views[by]?[a], "\(a) handled by \(by), which does not hear it")
      let candidates = Self.gateways.filter { $0 != "gw-1" || by == "gw-1" }
      let best = candidates.compactMap { views[$0]?[a] }.max() ?? mine
      #expect(mine > best - 6, "\(a) handled by \(by) at \(mine) dBm; best \(best)")
    }
    #expect(status.gateways.map(\.name) == Self.gateways)
    // `campaign status` shows the same picture: every device verified, gw-1 gone, exit 0 (complete).
    let shown = try await LocalTools.output(
      ApplyCrashTests.binary, ["campaign", "status", "site", "--journal", url, "--lease", "5", "--json"], in: folder,
      within: 60)
    #expect(shown.status == 0)
    let report = try JSONDecoder().decode(SiteStatus.self, from: Data(shown.stdout.utf8))
    #expect(report.devices.count == Self.count && report.complete && report.totals == ["verified": Self.count])
    #expect(report.gateways.first { $0.name == "gw-1" }?.alive == false)
    #expect(report.gateways.map { $0.devices["verified", default: 0] }.reduce(0, +) == Self.count)
    // `audit --journal` reads the registry the gateways share: every device with its last apply, the shared run.
    let audit = try await LocalTools.output(
      ApplyCrashTests.binary,
      [
        "audit", "--adapter", "sim:\(fleet)", "--scan", "1", "--format", "json", "--state-dir", folder + "/auditor",
        "--journal", url,
      ],
      in: folder, within: 120)
    #expect(audit.status == 0, "\(audit.stderr)")
    let audited =
      (try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])?["devices"]
      as? [[String: Any]] ?? []
    let lastApply = audited.compactMap {
      ($0["lastApply"] as? [String: Any]).map { "\($0["run"] ?? "")/\($0["outcome"] ?? "")" }
    }
    #expect(lastApply.count == Self.count && lastApply.allSatisfy { $0 == "site/verified" })
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: folder)
  }
}

/// The last lines a gateway process wrote to standard error, for a failure's message.
final class LogTail: Sendable {
  private let lines = Mutex<[String]>([])
  func add(_ line: String) { lines.withLock { $0 = Array(($0 + [line]).suffix(200)) } }
  var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
