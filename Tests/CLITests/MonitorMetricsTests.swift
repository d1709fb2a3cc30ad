import Foundation
import Loopback
import Testing

@testable import BeaconProvisionCLI

/// `monitor --metrics` as a real process on a simulated fleet, read by programs that share none of its code:
/// curl fetches /metrics, /healthz and /presence; the exposition is parsed by Prometheus' Python client
/// (`prometheus_client.parser`, Fixtures/parse_metrics.py) and checked by `promtool check metrics`; the
/// values are the fleet's.
@Suite(.timeLimit(.minutes(3))) struct MonitorMetricsTests {
  static let a = "AC:23:3F:00:40:01"
  static let b = "AC:23:3F:00:40:02"
  /// Heard on the air but not in the inventory: reports counted, never a device of the monitor's.
  static let c = "AC:23:3F:00:40:03"

  /// Three beacons always on the air at 100 ms; the inventory tags A `lobby` and B `lobby` and `desk`.
  static func folder(_ name: String, inventory: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
      .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let beacon = #""iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1}"#
    let devices = [a, b, c].map {
      #"{"address": "\#($0)", "kind": "iBeacon", "intervalMs": 100, "rssi": {"mean": -60, "spread": 0}, \#(beacon)}"#
    }
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#
      .write(toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    try inventory.write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    return folder
  }

  struct Sample: Decodable {
    var family: String
    var type: String
    var name: String
    var labels: [String: String]
    var value: Double
  }

  /// The exposition parsed by prometheus_client's parser (a parse error fails the test).
  static func parse(_ text: String) async throws -> [Sample] {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "Fixtures/parse_metrics.py"
    ).path
    let (status, output, errors) = try await MonitorProcess.tool("/usr/bin/python3", [script], input: text)
    #expect(status == 0, "prometheus_client could not parse /metrics: \(errors)\n\(text)")
    return try output.split(separator: "\n").map { try JSONDecoder().decode(Sample.self, from: Data($0.utf8)) }
  }

  @Test func metricsHealthAndPresenceAnswerWithTheSimulatedFleet() async throws {
    let folder = try Self.folder("monitor-metrics", inventory: "address,tags\n\(Self.a),lobby\n\(Self.b),lobby desk\n")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // A webhook nobody listens on: deliveries fail (transport) and stay spooled.
    let deadPort = try #require(LoopbackPort.free())
    let monitor = try MonitorProcess([
      "--adapter", "sim:\(folder)/fleet.json", "--inventory", folder + "/inventory.csv", "--state-dir",
      folder + "/state", "--metrics", "127.0.0.1:0", "--webhook", "http://127.0.0.1:\(deadPort)/hook", "--jsonl",
      "--duration", "120",
    ])
    let address = try await monitor.address()
    let base = "http://\(address)"
    #expect(address.hasPrefix("127.0.0.1:") && !address.hasSuffix(":0"))

    // /presence: both inventory devices, by tag; C is not the monitor's.
    var presence: [String: Any] = [:]
    try await MonitorProcess.until(30, "two devices in /presence: \(presence)") {
      let (status, body) = try await MonitorProcess.curl(base + "/presence")
      presence = (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
      return status == 200 && (presence["devices"] as? [Any])?.count == 2
    }
    let devices = try #require(presence["devices"] as? [[String: Any]])
    #expect(devices.map { $0["address"] as? String } == [Self.a, Self.b])
    #expect(devices.allSatisfy { $0["rssi"] as? Int == -60 })
    let tags = try #require(presence["tags"] as? [[String: Any]])
    #expect(tags.map { $0["name"] as? String } == ["desk", "lobby"])
    #expect(tags.map { $0["devices"] as? [String] } == [[Self.b], [Self.a, Self.b]])
    #expect(tags.allSatisfy { ($0["session"] as? String)?.isEmpty == false })

    // /healthz: the scan runs and the journal answers.
    var health = (status: 0, body: "")
    try await MonitorProcess.until(20, "/healthz 200: \(health)") {
      health = try await MonitorProcess.curl(base + "/healthz")
      return health.status == 200
    }
    #expect(health.body == "ok\n")

    // /metrics, once the journal probe has seen the spooled deliveries and a second of reports has passed.
    var text = ""
    var samples: [Sample] = []
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
      samples.first { $0.name == name && $0.labels == labels }?.value
    }
    try await MonitorProcess.until(30, "spooled webhook deliveries in /metrics:\n\(text)") {
      let (status, body) = try await MonitorProcess.curl(base + "/metrics")
      #expect(status == 200)
      text = body
      samples = try await Self.parse(body)
      return (value("beacon_provision_webhook_spool_depth") ?? 0) > 0
        && (value("beacon_provision_webhook_deliveries_failed_total", ["reason": "transport"]) ?? 0) > 0
    }
    #expect(value("beacon_provision_devices_heard") == 2)
    #expect(value("beacon_provision_devices_present") == 2)
    #expect(value("beacon_provision_tag_devices_present", ["tag": "lobby"]) == 2)
    #expect(value("beacon_provision_tag_devices_present", ["tag": "desk"]) == 1)
    #expect(value("beacon_provision_events_fired_total", ["kind": "enter"]) == 2)
    #expect(value("beacon_provision_events_fired_total", ["kind": "session-open"]) == 2)
    #expect(value("beacon_provision_events_fired_total", ["kind": "exit"]) == 0)
    // Three beacons at 10 advertisements a second each (C's included: the scan delivers it).
    let rate = try #require(value("beacon_provision_scan_reports_per_second"))
    #expect(rate >= 20 && rate <= 40, "\(rate) reports/s (30 expected)")
    #expect((value("beacon_provision_scan_reports_total") ?? 0) >= 30)
    // Four enters and session-opens, each one webhook delivery: spooled or failed, none delivered.
    #expect((value("beacon_provision_webhook_spool_depth") ?? 0) <= 4)
    let families = Dictionary(samples.map { ($0.family, $0.type) }, uniquingKeysWith: { a, _ in a })
    #expect(families["beacon_provision_scan_reports"] == "counter")
    #expect(families["beacon_provision_devices_present"] == "gauge")

    // promtool (Prometheus' own checker) when installed: scripts/setup installs it.
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") {
      let (status, output, errors) = try await MonitorProcess.tool(
        "/usr/bin/promtool", ["check", "metrics"], input: text)
      #expect(status == 0 && output.isEmpty && errors.isEmpty, "promtool: \(output) \(errors)")
    } else {
      print(
        "MonitorMetricsTests: promtool not installed (scripts/setup installs it); checked with prometheus_client only")
    }

    // HTTP edges: HEAD, unknown path, other methods.
    let head = try await MonitorProcess.curl(base + "/metrics", method: "HEAD")
    #expect(head.status == 200 && head.body.contains("Content-Type: text/plain; version=0.0.4"))
    #expect(try await MonitorProcess.curl(base + "/nope").status == 404)
    #expect(try await MonitorProcess.curl(base + "/metrics", method: "POST").status == 405)

    await monitor.stop()
    #expect(monitor.process.terminationStatus == 0, "\(monitor.errors.all)")
  }

  /// /healthz's reasons, from the snapshot the loop hands over.
  @Test func healthSaysWhyItIsNotOK() {
    let metrics = MonitorMetrics(staleAfter: .seconds(30))
    #expect(metrics.healthProblems().contains("the scan has not run yet"))
    #expect(metrics.healthProblems().contains { $0.hasPrefix("journal: ") })
    metrics.journalProbed(depth: 0, problem: nil)
    metrics.scanned(.init(file: .standard(actions: [])), at: Date(), reports: 0)
    #expect(metrics.healthProblems() == [])
    metrics.journalProbed(depth: nil, problem: "/x/journal.sqlite: disk I/O error")
    #expect(metrics.healthProblems() == ["journal: /x/journal.sqlite: disk I/O error"])
    let stale = MonitorMetrics(staleAfter: .zero)
    stale.journalProbed(depth: 0, problem: nil)
    stale.scanned(.init(file: .standard(actions: [])), at: Date(), reports: 0)
    #expect(stale.healthProblems().first?.hasPrefix("the scan last ran") == true)
    let silent = MonitorMetrics(staleAfter: .seconds(30), probeTimeout: .zero)
    silent.scanned(.init(file: .standard(actions: [])), at: Date(), reports: 0)
    silent.journalProbed(depth: 0, problem: nil)
    silent.journalProbing()
    #expect(silent.healthProblems().first?.hasPrefix("journal: no answer for") == true)
    metrics.journalProbed(depth: 0, problem: nil)
    metrics.scanEnded()
    #expect(metrics.healthProblems() == ["the scan has stopped"])
  }
}
