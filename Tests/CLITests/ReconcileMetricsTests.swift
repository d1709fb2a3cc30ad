import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --metrics` as a real process on a simulated site, read by programs that share none of its code:
/// curl fetches /metrics and /healthz, Prometheus' Python client parses the exposition and `promtool check
/// metrics` checks it (as `MonitorMetricsTests` does); the values are the site's, and the write count is
/// checked against the simulator's own write log.
@Suite(.timeLimit(.minutes(5))) struct ReconcileMetricsTests {
  @Test func metricsCountTheSiteAndHealthIsOK() async throws {
    // Device 0 converges with one write; device 1 is busy and backs off; device 2 is not the profile's.
    let site = try ReconcileProcess(devices: ["", #""kbeacon": {"busy": true}"#, ""])
    try site.writeProfile(name: "metrics", count: 2)
    try site.start(["--metrics", "127.0.0.1:0", "--backoff-base", "0.5"])
    let address = try await Self.metricsAddress(site)
    let base = "http://\(address)"

    var text = ""
    var samples: [MonitorMetricsTests.Sample] = []
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
      samples.first { $0.name == name && $0.labels == labels }?.value
    }
    try await MonitorProcess.until(60, "device 0 converged and device 1 failing in /metrics:\n\(text)") {
      let (status, body) = try await MonitorProcess.curl(base + "/metrics")
      #expect(status == 200)
      text = body
      samples = try await MonitorMetricsTests.parse(body)
      return value("beacon_provision_reconcile_writes_total") == 1 && value("beacon_provision_devices_failing") == 1
        && (value("beacon_provision_reconcile_failures_total", ["reason": "write_failed"]) ?? 0) >= 2
    }
    #expect(value("beacon_provision_devices_heard") == 3)
    #expect(value("beacon_provision_devices_managed") == 2)
    #expect(value("beacon_provision_devices_compliant") == 1)
    #expect(value("beacon_provision_devices_pending") == 0)
    #expect(value("beacon_provision_reconcile_failures_total", ["reason": "wrong_password"]) == 0)
    #expect((value("beacon_provision_scan_windows_total") ?? 0) >= 1)
    #expect(value("beacon_provision_links_in_use") != nil)
    let families = Dictionary(samples.map { ($0.family, $0.type) }, uniquingKeysWith: { a, _ in a })
    #expect(families["beacon_provision_reconcile_writes"] == "counter")
    #expect(families["beacon_provision_devices_compliant"] == "gauge")
    // The count is the devices' own: one `cfg` accepted, by device 0.
    #expect(try site.writes() == [ReconcileProcess.address(0): 1])

    if FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") {
      let (status, output, errors) = try await MonitorProcess.tool(
        "/usr/bin/promtool", ["check", "metrics"], input: text)
      #expect(status == 0 && output.isEmpty && errors.isEmpty, "promtool: \(output) \(errors)")
    }

    var health = (status: 0, body: "")
    try await MonitorProcess.until(20, "/healthz 200: \(health)") {
      health = try await MonitorProcess.curl(base + "/healthz")
      return health.status == 200
    }
    #expect(health.body == "ok\n")
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0)
  }

  /// /healthz of a real process whose shared journal goes away: 200 while the PostgreSQL server answers, then
  /// 503 naming the journal once it is stopped (about 14 s: the probe's 10 s without an answer). A SIGTERM then
  /// ends the process at once: the registry's writes run beside the loop (`BesideTheLoop`), so the dead
  /// server's connection attempts no longer hold a window (it took about 45 s when the loop waited for them;
  /// the bound below is far above the second or two it takes, so a loaded machine cannot trip it).
  @Test func healthTurns503WhenTheSharedJournalStopsAnswering() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try ReconcileProcess(devices: [""])
    try site.start(["--metrics", "127.0.0.1:0", "--journal", url, "--gateway", "gw-metrics"])
    let address = try await Self.metricsAddress(site)
    var health = (status: 0, body: "")
    try await MonitorProcess.until(60, "/healthz 200 with the server up: \(health)") {
      health = try await MonitorProcess.curl("http://\(address)/healthz")
      return health.status == 200 && !site.events("converged").isEmpty
    }
    await server.stop()
    try await MonitorProcess.until(60, "/healthz 503 naming the journal: \(health)") {
      health = try await MonitorProcess.curl("http://\(address)/healthz")
      return health.status == 503 && health.body.contains("journal")
    }
    #expect(!health.body.contains("password"))
    let stopping = ContinuousClock.now
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0, "\(site.errorLines.suffix(10))")
    let took = ContinuousClock.now - stopping
    #expect(took < .seconds(25), "SIGTERM took \(took) with the journal's server gone")
  }

  /// The HOST:PORT a process started with `--metrics 127.0.0.1:0` took, from its standard error.
  static func metricsAddress(_ site: ReconcileProcess) async throws -> String {
    let prefix = "reconcile: metrics on http://"
    var address = ""
    try await MonitorProcess.until(30, "the metrics address on standard error: \(site.errorLines)") {
      guard let line = site.errorLines.first(where: { $0.hasPrefix(prefix) }) else { return false }
      address = String(line.dropFirst(prefix.count).prefix { $0 != "/" })
      return true
    }
    return address
  }

  /// /healthz's reasons, from what the loop reports.
  @Test func healthSaysWhyItIsNotOK() {
    let metrics = ReconcileMetrics(window: 10)
    #expect(metrics.staleAfter == .seconds(120))
    #expect(metrics.healthProblems().contains("no scan window has ended yet"))
    #expect(metrics.healthProblems().contains("journal: the journal has not been checked yet"))
    metrics.journalProbed(problem: nil)
    metrics.judged(heard: 0, decisions: [])
    #expect(metrics.healthProblems() == [])
    metrics.journalProbed(problem: "/x/journal.sqlite: disk I/O error")
    #expect(metrics.healthProblems() == ["journal: /x/journal.sqlite: disk I/O error"])
    let stale = ReconcileMetrics(window: 1, staleAfter: .zero)
    stale.journalProbed(problem: nil)
    stale.judged(heard: 0, decisions: [])
    #expect(stale.healthProblems().first?.hasPrefix("no scan window or device visit ended for") == true)
    stale.stopped()
    #expect(stale.healthProblems() == ["reconcile is stopping"])
  }

  /// The device gauges follow the schedule's decisions.
  @Test func gaugesFollowTheDecisions() {
    let metrics = ReconcileMetrics(window: 10)
    metrics.judged(
      heard: 9,
      decisions: [
        .upToDate, .recheck, .airDrift(["name"]), .neverVerified, .contentChanged, .backingOff(until: 1),
        .wrongPassword,
      ])
    let value = { (name: String) in metrics.registry.value("beacon_provision_" + name) }
    #expect(value("devices_heard") == 9 && value("devices_managed") == 7)
    #expect(value("devices_compliant") == 2 && value("devices_pending") == 4)
    #expect(value("devices_drifted") == 1 && value("devices_failing") == 2)
    #expect(value("scan_windows_total") == 1)
    metrics.observe(.init(event: "converged", keys: ["name"]))
    metrics.observe(.init(event: "converged", keys: []))
    metrics.observe(.init(event: "wrong-password"))
    #expect(value("reconcile_writes_total") == 1 && value("reconcile_checks_total") == 1)
    #expect(
      metrics.registry.value("beacon_provision_reconcile_failures_total", labels: ["reason": "wrong_password"]) == 1)
  }
}
