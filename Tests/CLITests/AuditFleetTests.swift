import ArgumentParser
import Audit
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `audit` against a seeded simulated fleet with deliberate drift, through the CLI's own path:
/// - E1:01–E1:05 are in the inventory and the profile is applied to them first; E1:04 has another
///   password, so that apply fails on it (its last run failed, and it still advertises its factory frames);
/// - then E1:02 is changed behind the profile's back (major 7 instead of 50);
/// - E1:03's battery is at 8 %; E1:05 runs 5.12, older than the example catalogue's 5.14; E1:06 is in the inventory but not on the air; E1:09 is on the air but
///   nobody names it.
/// The JSON and CSV are compared with golden files (times and run ids replaced by placeholders);
/// `AUDIT_GOLDEN_UPDATE=1` rewrites them.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct AuditFleetTests {
  /// The site's folder, removed when the test lets go of it.
  final class Site: Sendable {
    let folder: String

    deinit { try? FileManager.default.removeItem(atPath: folder) }
    var fleet: String { folder + "/fleet.json" }
    var profile: String { folder + "/site.json" }
    var tamper: String { folder + "/tamper.json" }

    init() throws {
      folder = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      func device(_ n: Int, battery: Int = 90, firmware: String = "5.22", extra: String = "") -> String {
        #"{"address": "DD:34:02:06:E1:0\#(n)", "kind": "kbeaconPro", "name": "KBPro_E\#(n)", "intervalMs": 500, "#
          + #""rssi": {"mean": -\#(50 + n), "spread": 0}, "system": {"model": 12, "batteryPercent": \#(battery), "firmware": "\#(firmware)"}\#(extra)}"#
      }
      let devices = [
        device(1), device(2), device(3, battery: 8), device(4, extra: #", "kbeacon": {"password": "n0t-the-default"}"#),
        device(5, firmware: "5.12"), device(9),
      ]
      try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
        toFile: fleet, atomically: true, encoding: .utf8)
      let rows =
        ["address,minor,tags"] + (1...6).map { "DD:34:02:06:E1:0\($0),\(100 + $0),\($0 <= 2 ? "front" : "back")" }
      try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
      let slot =
        #"{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": MAJOR, "minor": "{{minor}}", "intervalMs": 500, "connectable": true}"#
      try
        #"{"version": 1, "inventory": "inventory.csv", "desired": {"name": "site-{{minor}}", "slots": [\#(slot.replacingOccurrences(of: "MAJOR", with: "50"))]}}"#
        .write(toFile: profile, atomically: true, encoding: .utf8)
      try
        #"{"version": 1, "inventory": "inventory.csv", "select": {"addresses": ["DD:34:02:06:E1:02"]}, "desired": {"slots": [\#(slot.replacingOccurrences(of: "MAJOR", with: "7"))]}}"#
        .write(toFile: tamper, atomically: true, encoding: .utf8)
    }

    func apply(_ profile: String) async throws {
      let options = try ProvisionOptions.parse([
        profile, "--adapter", "sim:\(fleet)", "--scan", "3", "--retry-delay", "0", "--attempts", "1",
      ])
      _ = try await ApplyInvocation(options: options, dryRun: false, resume: nil, pace: .unpaced).run()
    }

    func audit(_ extra: [String] = []) async throws -> AuditReport {
      let command = try AuditCommand.parse([profile, "--adapter", "sim:\(fleet)", "--scan", "4"] + extra)
      return try await AuditRunner(
        command: command, pace: .unpaced, now: { Date(timeIntervalSince1970: 1_795_600_000) }
      ).run()
    }

    /// The fleet as the tests want it: applied, then E1:02 changed behind the profile's back.
    static func prepared() async throws -> Site {
      let site = try Site()
      try await site.apply(site.profile)
      try await site.apply(site.tamper)
      return site
    }
  }

  static func statuses(_ report: AuditReport) -> [String: AuditStatus] {
    Dictionary(uniqueKeysWithValues: report.devices.map { (String($0.address.suffix(5)), $0.status) })
  }

  @Test func passiveAuditFindsDriftMissingUnknownLowBatteryAndTheFailedRun() async throws {
    let site = try await Site.prepared()
    let report = try await site.audit()
    #expect(
      Self.statuses(report) == [
        "E1:01": .compliant, "E1:02": .drifted, "E1:03": .compliant, "E1:04": .drifted,
        "E1:05": .compliant, "E1:06": .missing, "E1:09": .unknown,
      ])
    let byAddress = Dictionary(uniqueKeysWithValues: report.devices.map { (String($0.address.suffix(5)), $0) })
    #expect(
      byAddress["E1:02"]?.drift == [
        AuditDrift(scope: "slot 0", key: "iBeacon.major", expected: "50", actual: "7", source: .air)
      ])
    #expect(byAddress["E1:03"]?.flags == [.lowBattery], "8 %, as the apply's read found it")
    #expect(byAddress["E1:04"]?.flags == [.lastRunFailed])
    #expect(byAddress["E1:04"]?.lastApply?.outcome == "failed")
    #expect(byAddress["E1:01"]?.lastApply?.outcome == "verified")
    #expect(byAddress["E1:06"]?.heard == false && byAddress["E1:06"]?.lastSeen == nil)
    #expect(report.summary.tags.map(\.tag) == ["back", "front"])
    #expect(report.summary.tags[1].status.drifted == 1 && report.summary.tags[1].status.compliant == 1)
    #expect(report.mode == .passive && report.needsAttention)
    try Golden.check(AuditJSON.render(report), "audit-passive.json", site: site.folder)
    try Golden.check(AuditCSV.render(report), "audit-passive.csv", site: site.folder)
  }

  @Test func connectedAuditReadsTheDriftAndReportsTheDeviceItCannotRead() async throws {
    let report = try await Site.prepared().audit(["--connect", "--parallel", "2"])
    #expect(
      Self.statuses(report) == [
        "E1:01": .compliant, "E1:02": .drifted, "E1:03": .compliant, "E1:04": .unreachable,
        "E1:05": .compliant, "E1:06": .missing, "E1:09": .unknown,
      ])
    let e2 = report.devices.first { $0.address.hasSuffix("E1:02") }
    #expect(
      e2?.drift.contains(AuditDrift(scope: "slot 0", key: "majorID", expected: "50", actual: "7", source: .read))
        == true)
    #expect(report.devices.first { $0.address.hasSuffix("E1:04") }?.error?.contains("password") == true)
    #expect(report.devices.first { $0.address.hasSuffix("E1:01") }?.model != nil, "a read fills in the model")
  }

  /// A device in both the profile's inventory and `--inventory` lost the `--inventory` tags without a word:
  /// it keeps both files' tags.
  @Test func aDeviceInBothInventoriesKeepsTheTagsOfBoth() async throws {
    let site = try await Site.prepared()
    let extra = site.folder + "/extra.csv"
    try "address,tags\nDD:34:02:06:E1:01,ladder\nDD:34:02:06:E1:09,visitor\n".write(
      toFile: extra, atomically: true, encoding: .utf8)
    let report = try await site.audit(["--inventory", extra])
    let tags = Dictionary(uniqueKeysWithValues: report.devices.map { (String($0.address.suffix(5)), $0.tags) })
    #expect(tags["E1:01"] == ["front", "ladder"])
    #expect(tags["E1:09"] == ["visitor"])
    #expect(tags["E1:03"] == ["back"])
  }

  @Test func firmwareOlderThanTheCachedCatalogueIsFlagged() async throws {
    let site = try await Site.prepared()
    let catalog =
      "file://"
      + URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../firmware/example")
      .standardized.path
    let cache = site.folder + "/firmware"
    // Without a cached catalogue nothing is compared; `firmware catalog` caches it.
    let before = try await site.audit(["--catalog", catalog, "--firmware-dir", cache])
    #expect(before.summary.oldFirmware == 0)
    let parsed = try BeaconProvision.parseAsRoot([
      "firmware", "catalog", "KBPro_SIM", "--catalog", catalog, "--firmware-dir", cache,
    ])
    guard var command = parsed as? any AsyncParsableCommand else {
      Issue.record("firmware catalog is not async")
      return
    }
    try await command.run()
    let report = try await site.audit(["--catalog", catalog, "--firmware-dir", cache])
    #expect(report.devices.filter { $0.flags.contains(.oldFirmware) }.map { String($0.address.suffix(5)) } == ["E1:05"])
    #expect(report.thresholds.newestFirmware["KBPro_SIM"] == "5.14")
  }

  @Test func aCompliantFleetExitsZeroAndADriftedOneTwoWithDetailedExitcode() async throws {
    let site = try await Site.prepared()
    let report = try await site.audit()
    #expect(report.needsAttention)
    var drifted = try AuditCommand.parse([
      site.profile, "--adapter", "sim:\(site.fleet)", "--scan", "1", "--detailed-exitcode",
      "--output", site.folder + "/audit.csv",
    ])
    await #expect(throws: ExitCode(2)) { try await drifted.run() }
    let csv = try String(contentsOfFile: site.folder + "/audit.csv", encoding: .utf8)
    #expect(csv.hasPrefix(AuditCSV.columns.joined(separator: ",") + "\r\n"), "the format follows the extension")
    drifted = try AuditCommand.parse([
      site.profile, "--adapter", "sim:\(site.fleet)", "--scan", "1", "--format", "json",
    ])
    await #expect(throws: Never.self) { try await drifted.run() }
  }
}

/// Golden files under Tests/CLITests/Golden, with what changes from run to run replaced: ISO-8601 times
/// by `<time>`, journal run ids by `<run>`, the test's own folder by `<site>`.
enum Golden {
  static var folder: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path
  }

  static func normalized(_ text: String, site: String) -> String {
    var t = text.replacingOccurrences(of: site, with: "<site>")
    t = t.replacingOccurrences(of: #"\d{8}-\d{6}-[0-9a-f]{1,4}"#, with: "<run>", options: .regularExpression)
    t = t.replacingOccurrences(
      of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>", options: .regularExpression)
    return t
  }

  static func check(_ text: String, _ name: String, site: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let path = folder + "/" + name
    let actual = normalized(text, site: site)
    if ProcessInfo.processInfo.environment["AUDIT_GOLDEN_UPDATE"] == "1" {
      try actual.write(toFile: path, atomically: true, encoding: .utf8)
      return
    }
    let expected = try String(contentsOfFile: path, encoding: .utf8)
    #expect(
      actual == expected, "\(name) differs from the golden file (AUDIT_GOLDEN_UPDATE=1 rewrites it)",
      sourceLocation: sourceLocation)
  }
}
