import CampaignPipeline
import Foundation
import Metrics
import Synchronization

/// What `reconcile --metrics` serves (`MetricsServer`): `/metrics` in Prometheus text and `/healthz`.
///
/// - Gauges, from the last scan window's devices as the schedule judges them (`ReconcileLedger.Decision`),
///   set after each window, before its pass: `beacon_provision_devices_heard` (every device of the
///   window), `…_managed` (those a profile selects), `…_compliant` (verified against the profile's current
///   content, no new drift: up to date or only due for a recheck), `…_pending` (due: never verified, content
///   changed, drift on the air, or a recheck), `…_drifted` (due because of drift on the air), `…_failing`
///   (backing off, or refused the password); and `beacon_provision_links_in_use` (the scheduler's links now).
/// - Counters, from the actions `ReconcileOutput` reports: `beacon_provision_reconcile_writes_total` (devices
///   written and verified), `…_checks_total` (devices found compliant), `…_failures_total` by reason
///   (`write_failed`, `wrong_password`, `firmware_failed`, `firmware_error`), `…_skipped_total` by reason (`battery`, `budget`,
///   `quiet`, `maintenance`, `bootloader`: a neighbour's bootloader waited out), with `--firmware` `…_firmware_updates_total` and `…_firmware_checks_total`, and
///   `beacon_provision_scan_windows_total`.
/// - `/healthz`: 200 "ok" while the loop makes progress and the journal answers; else 503 with the reasons.
///   Progress is a scan window or a device visit ending; [I] the loop is unhealthy when neither happened for
///   `staleAfter` (three windows, at least two minutes: a visit has its own timeouts well under that). The
///   journal is probed every 5 s off the loop (`probe`); [I] a probe unanswered for 10 s is unhealthy.
final class ReconcileMetrics: Sendable {
  let registry = MetricsRegistry()
  let staleAfter: Duration
  let probeTimeout: Duration
  private let state = Mutex(Health())

  struct Health: Sendable {
    var progress: ContinuousClock.Instant?
    var stopped = false
    var journalProblem: String? = "the journal has not been checked yet"
    var probing: ContinuousClock.Instant?
  }

  static let prefix = "beacon_provision_"
  static let gauges: [(String, String)] = [
    ("devices_heard", "Devices heard in the last scan window."),
    ("devices_managed", "Devices of the last window that a profile selects."),
    ("devices_compliant", "Managed devices verified against their profile's current content, with no new drift."),
    ("devices_pending", "Managed devices due for a visit (never verified, changed content, drift, recheck)."),
    ("devices_drifted", "Managed devices due because their advertisement shows drift."),
    ("devices_failing", "Managed devices backing off after a failure, or that refused the password."),
    ("links_in_use", "Device links the scheduler holds open now."),
  ]

  init(window: Double, staleAfter: Duration? = nil, probeTimeout: Duration = .seconds(10)) {
    self.staleAfter = staleAfter ?? .seconds(max(120, 3 * window))
    self.probeTimeout = probeTimeout
    for (name, help) in Self.gauges { registry.declare(Self.prefix + name, .gauge, help: help) }
    registry.declare(Self.prefix + "reconcile_writes_total", .counter, help: "Devices written and verified.")
    registry.declare(
      Self.prefix + "reconcile_checks_total", .counter, help: "Devices a connected check found compliant.")
    registry.declare(
      Self.prefix + "reconcile_failures_total", .counter,
      help: "Failed visits, by reason (write_failed, wrong_password, firmware_failed, firmware_error).",
      unlabelled: false)
    registry.declare(
      Self.prefix + "reconcile_skipped_total", .counter,
      help: "Due devices left alone, by reason (battery, budget, quiet, maintenance).",
      unlabelled: false)
    registry.declare(
      Self.prefix + "reconcile_firmware_updates_total", .counter,
      help: "Devices updated to the catalogue's firmware and read back (--firmware).")
    registry.declare(
      Self.prefix + "reconcile_firmware_checks_total", .counter,
      help: "Firmware checks that left the device as it was: current, or no release for it (--firmware).")
    registry.declare(Self.prefix + "scan_windows_total", .counter, help: "Scan windows completed.")
    for reason in ["write_failed", "wrong_password", "firmware_failed", "firmware_error"] {
      registry.add(Self.prefix + "reconcile_failures_total", 0, labels: ["reason": reason])
    }
    for reason in ["battery", "budget", "quiet", "maintenance", "bootloader"] {
      registry.add(Self.prefix + "reconcile_skipped_total", 0, labels: ["reason": reason])
    }
  }

  /// A scan window ended with `heard` devices; the managed ones as the schedule judges them now.
  func judged(heard: Int, decisions: [ReconcileLedger.Decision]) {
    var counts = (compliant: 0, pending: 0, drifted: 0, failing: 0)
    for decision in decisions {
      switch decision {
      case .upToDate: counts.compliant += 1
      case .recheck: (counts.compliant, counts.pending) = (counts.compliant + 1, counts.pending + 1)
      case .airDrift: (counts.pending, counts.drifted) = (counts.pending + 1, counts.drifted + 1)
      case .neverVerified, .contentChanged: counts.pending += 1
      case .backingOff, .wrongPassword: counts.failing += 1
      case .notSelected: break
      }
    }
    registry.set(Self.prefix + "devices_heard", Double(heard))
    registry.set(Self.prefix + "devices_managed", Double(decisions.count))
    registry.set(Self.prefix + "devices_compliant", Double(counts.compliant))
    registry.set(Self.prefix + "devices_pending", Double(counts.pending))
    registry.set(Self.prefix + "devices_drifted", Double(counts.drifted))
    registry.set(Self.prefix + "devices_failing", Double(counts.failing))
    registry.add(Self.prefix + "scan_windows_total")
    progressed()
  }

  /// One action `ReconcileOutput` reported.
  func observe(_ event: ReconcileOutput.Event) {
    switch event.event {
    case "converged":
      registry.add(Self.prefix + (event.keys?.isEmpty == false ? "reconcile_writes_total" : "reconcile_checks_total"))
      progressed()
    case "write-failed", "wrong-password":
      registry.add(
        Self.prefix + "reconcile_failures_total",
        labels: ["reason": event.event.replacingOccurrences(of: "-", with: "_")])
      progressed()
    case "skipped-battery": registry.add(Self.prefix + "reconcile_skipped_total", labels: ["reason": "battery"])
    case "skipped-budget": registry.add(Self.prefix + "reconcile_skipped_total", labels: ["reason": "budget"])
    case "skipped-quiet": registry.add(Self.prefix + "reconcile_skipped_total", labels: ["reason": "quiet"])
    case "skipped-maintenance":
      registry.add(Self.prefix + "reconcile_skipped_total", labels: ["reason": "maintenance"])
    case "firmware-updated":
      registry.add(Self.prefix + "reconcile_firmware_updates_total")
      progressed()
    case "firmware-current":
      registry.add(Self.prefix + "reconcile_firmware_checks_total")
      progressed()
    case "firmware-failed":
      registry.add(Self.prefix + "reconcile_failures_total", labels: ["reason": "firmware_failed"])
      progressed()
    case "firmware-error":
      registry.add(Self.prefix + "reconcile_failures_total", labels: ["reason": "firmware_error"])
    case "firmware-shadowed", "shadowed":
      // Waiting out a neighbour's bootloader is not this device's failure.
      registry.add(Self.prefix + "reconcile_skipped_total", labels: ["reason": "bootloader"])
      progressed()
    default: break
    }
  }

  func links(_ count: Int) { registry.set(Self.prefix + "links_in_use", Double(count)) }

  func stopped() { state.withLock { $0.stopped = true } }

  private func progressed() { state.withLock { $0.progress = .now } }

  func journalProbing() { state.withLock { $0.probing = .now } }

  func journalProbed(problem: String?) {
    state.withLock {
      $0.journalProblem = problem
      $0.probing = nil
    }
  }

  /// Why reconcile is not healthy now (empty: healthy).
  func healthProblems() -> [String] {
    let health = state.withLock { $0 }
    var problems: [String] = []
    if health.stopped {
      problems.append("reconcile is stopping")
    } else if let progress = health.progress {
      let age = ContinuousClock.now - progress
      if age > staleAfter {
        problems.append(
          "no scan window or device visit ended for \(age.components.seconds) s (limit \(staleAfter.components.seconds) s)"
        )
      }
    } else {
      problems.append("no scan window has ended yet")
    }
    if let probing = health.probing, ContinuousClock.now - probing > probeTimeout {
      problems.append("journal: no answer for \((ContinuousClock.now - probing).components.seconds) s")
    } else if let journal = health.journalProblem {
      problems.append("journal: \(journal)")
    }
    return problems
  }

  var routes: [String: @Sendable () -> HTTPExchange.Response] {
    [
      "/metrics": { [self] in
        HTTPExchange.Response(status: 200, contentType: PrometheusText.contentType, body: registry.exposition())
      },
      "/healthz": { [self] in HTTPExchange.Response.health(healthProblems()) },
    ]
  }
}
