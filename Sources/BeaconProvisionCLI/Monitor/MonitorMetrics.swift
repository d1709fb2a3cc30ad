import Foundation
import Metrics
import Presence
import Synchronization

/// What `monitor --metrics` serves (`MetricsServer`): `/metrics` (Prometheus text, `beacon_provision_…`),
/// `/healthz` and `/presence`. The scan loop hands over a copy of its presence engine about once a second
/// (`scanned`) — a copy-on-write value, so the hand-over is a retain — and the server's thread renders from
/// it, so a scrape costs the scan nothing but that.
final class MonitorMetrics: Sendable {
  let registry = MetricsRegistry()
  /// [I] 30 s: the loop handles a report or a clock tick every second while it runs; a loop held up 30 s
  /// (a stuck adapter, a journal write that does not return) is unhealthy.
  let staleAfter: Duration
  /// [I] 10 s: a journal probe that has not answered by then (a PostgreSQL server gone quiet) is unhealthy,
  /// though the probe itself may still be waiting.
  let probeTimeout: Duration
  private let state = Mutex(Snapshot())

  struct Snapshot: Sendable {
    var engine: PresenceEngine?
    var at = Date()
    /// When the loop last handed over (wall clock of this process).
    var lastScan: ContinuousClock.Instant?
    var scanEnded = false
    /// nil once a journal probe succeeded; the reason otherwise ("not checked yet" before the first).
    var journalProblem: String? = "the journal has not been checked yet"
    /// When the journal probe under way started (nil: none is).
    var probing: ContinuousClock.Instant?
    /// (instant, reports so far) over the last 10 s, for the reports-per-second gauge.
    var rate: [(ContinuousClock.Instant, Int)] = []
    /// Reports already added to the counter.
    var counted = 0
  }

  static let heard = "beacon_provision_devices_heard"
  static let present = "beacon_provision_devices_present"
  static let tagPresent = "beacon_provision_tag_devices_present"
  static let reports = "beacon_provision_scan_reports_total"
  static let reportRate = "beacon_provision_scan_reports_per_second"
  static let spoolDepth = "beacon_provision_webhook_spool_depth"
  static let webhookFailures = "beacon_provision_webhook_deliveries_failed_total"
  static let events = "beacon_provision_events_fired_total"

  init(staleAfter: Duration = .seconds(30), probeTimeout: Duration = .seconds(10)) {
    self.staleAfter = staleAfter
    self.probeTimeout = probeTimeout
    registry.declare(Self.heard, .gauge, help: "Devices heard that the monitor watches (the inventory's, else all).")
    registry.declare(Self.present, .gauge, help: "Devices present now.")
    registry.declare(Self.tagPresent, .gauge, help: "Devices present now, per inventory tag.", unlabelled: false)
    registry.declare(Self.reports, .counter, help: "Advertising reports the scan delivered.")
    registry.declare(Self.reportRate, .gauge, help: "Advertising reports per second over the last 10 seconds.")
    registry.declare(Self.spoolDepth, .gauge, help: "Webhook deliveries waiting in the spool.")
    registry.declare(
      Self.webhookFailures, .counter,
      help: "Webhook deliveries that failed, by reason (http_status, transport, refused, spool_full, spool_error).",
      unlabelled: false)
    registry.declare(Self.events, .counter, help: "Events fired, by kind.", unlabelled: false)
    for kind in PresenceEvent.Kind.allCases { registry.add(Self.events, 0, labels: ["kind": kind.rawValue]) }
  }

  /// The loop's hand-over: the engine as it stands at `at`, and the reports delivered so far.
  func scanned(_ engine: PresenceEngine, at: Date, reports: Int) {
    let now = ContinuousClock.now
    let (perSecond, delta): (Double, Int) = state.withLock { s in
      let delta = max(0, reports - s.counted)
      s.counted = max(s.counted, reports)
      s.engine = engine
      s.at = at
      s.lastScan = now
      s.rate.append((now, reports))
      s.rate.removeAll { now - $0.0 > .seconds(10) }
      guard let first = s.rate.first, now - first.0 >= .milliseconds(500) else { return (0, delta) }
      let seconds = Double((now - first.0).components.seconds) + Double((now - first.0).components.attoseconds) / 1e18
      return (Double(reports - first.1) / seconds, delta)
    }
    registry.add(Self.reports, Double(delta))
    registry.set(Self.reportRate, (perSecond * 10).rounded() / 10)
  }

  func fired(_ events: [PresenceEvent]) {
    for event in events { registry.add(Self.events, labels: ["kind": event.kind.rawValue]) }
  }

  func scanEnded() { state.withLock { $0.scanEnded = true } }

  func webhookFailed(_ reason: String, count: Int = 1) {
    registry.add(Self.webhookFailures, Double(count), labels: ["reason": reason])
  }

  /// A journal probe starts.
  func journalProbing() { state.withLock { $0.probing = .now } }

  /// A journal probe's outcome: the spool's depth, or why the journal could not be read.
  func journalProbed(depth: Int?, problem: String?) {
    if let depth { registry.set(Self.spoolDepth, Double(depth)) }
    state.withLock {
      $0.journalProblem = problem
      $0.probing = nil
    }
  }

  var routes: [String: @Sendable () -> HTTPExchange.Response] {
    [
      "/metrics": { [self] in
        HTTPExchange.Response(status: 200, contentType: PrometheusText.contentType, body: exposition())
      },
      "/healthz": { [self] in HTTPExchange.Response.health(healthProblems()) },
      "/presence": { [self] in
        let (engine, at) = state.withLock { ($0.engine, $0.at) }
        let body =
          engine.map { PresenceEventJSON.presence($0, at: at) }
          ?? #"{"schema": "beacon-provision/presence/v1", "devices": [], "tags": []}"#
        return HTTPExchange.Response(status: 200, contentType: "application/json", body: body + "\n")
      },
    ]
  }

  /// The gauges that come from the presence engine, then the whole registry.
  func exposition() -> String {
    if let engine = state.withLock({ $0.engine }) {
      let present = engine.presentDevices
      registry.set(Self.heard, Double(engine.heardCount))
      registry.set(Self.present, Double(present.count))
      var perTag: [String: Int] = [:]
      for device in present { for tag in device.tags { perTag[tag, default: 0] += 1 } }
      registry.replace(Self.tagPresent, perTag.map { (labels: ["tag": $0.key], value: Double($0.value)) })
    }
    return registry.exposition()
  }

  /// Why the monitor is not healthy now (empty: healthy).
  func healthProblems() -> [String] {
    let (lastScan, ended, journal, probing) = state.withLock {
      ($0.lastScan, $0.scanEnded, $0.journalProblem, $0.probing)
    }
    var problems: [String] = []
    if ended {
      problems.append("the scan has stopped")
    } else if let lastScan {
      let age = ContinuousClock.now - lastScan
      if age > staleAfter {
        problems.append("the scan last ran \(age.components.seconds) s ago (limit \(staleAfter.components.seconds) s)")
      }
    } else {
      problems.append("the scan has not run yet")
    }
    if let probing, ContinuousClock.now - probing > probeTimeout {
      problems.append("journal: no answer for \((ContinuousClock.now - probing).components.seconds) s")
    } else if let journal {
      problems.append("journal: \(journal)")
    }
    return problems
  }
}
