import ArgumentParser
import BeaconCore
import BlueZ
import CampaignPipeline
import Fleet
import FleetIO
import Foundation
import Profiles
import Simulator
import Synchronization

/// `reconcile`'s loop: scan a window, choose the due devices (`ReconcileDue`), run them through
/// the same `CampaignPipeline` as `apply` (one apply run per profile and pass, in the journal; the records
/// of the window are given, so the pipeline does not scan again), record what came of each in the ledger,
/// and go on until a signal stops it (`ReconcileSignals`) or, with `--once`, after one pass.
///
/// `--metrics` (`ReconcileMetrics`): every action goes through `ReconcileOutput.emit`, whose observer
/// counts it; the loop sets the device gauges after each window (not again after the pass: the window's
/// advertisements still show a device just repaired as drifted), and the links in use as the scheduler
/// reports them.
struct ReconcileLoop {
  struct Settings: Sendable {
    var profiles: [String]
    var adapter: AdapterChoice?
    var scanBackend: ScanBackend
    var stateDirectory: String
    var window: Double
    var recheck: Double
    var parallel: Int
    var maxConnectionsPerHour: Int?
    var minBattery: Int?
    var once: Bool
    /// The first backoff's seconds (`ReconcileLedger.backoffBase`; tests shorten it).
    var backoffBase = ReconcileLedger.backoffBase
    var pace: SimulationPace = .realTime
    /// `--metrics HOST:PORT`: where `ReconcileMetrics` is served (nil: not served).
    var metrics: String?
    /// `--journal`, `--gateway`, `--lease`, … : with a PostgreSQL journal, the site is shared with the other
    /// gateways reconciling it (`ReconcileSiteRuns`); nil or without `--journal`, this machine's journal.
    var shared: SharedJournalOptions? = nil
    /// `--quiet-hours`: no device is connected to inside it.
    var quietHours: QuietHours? = nil
  }

  var settings: Settings
  var output: ReconcileOutput
  /// What `--metrics` serves (nil without it); it counts every event `output` reports.
  let metrics: ReconcileMetrics?
  /// The clock of the schedule (seconds since 1970).
  var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

  init(settings: Settings, output: ReconcileOutput) {
    let metrics = settings.metrics.map { _ in ReconcileMetrics(window: settings.window) }
    var output = output
    if let metrics { output.observe = { metrics.observe($0) } }
    (self.settings, self.output, self.metrics) = (settings, output, metrics)
  }

  /// Runs until stopped; returns whether a device failed in the last pass (`--once`'s exit status).
  func run() async throws -> Bool {
    let signals = ReconcileSignals()
    defer { signals.cancel() }
    var profiles = try await ReconcileProfile.load(settings.profiles)
    let state = settings.stateDirectory
    var ledger = try await BlockingIO.run { try ReconcileLedger.load(stateDirectory: state) }
    let resources = try await CampaignResources.open(
      stateDirectory: state, central: nil, adapter: settings.adapter, scanBackend: settings.scanBackend,
      pace: settings.pace, shared: settings.shared)
    let central = resources.central
    var service: ReconcileMetricsService?
    if let metrics, let endpoint = settings.metrics {
      service = try ReconcileMetricsService.start(metrics, endpoint, journal: resources.journal)
    }
    defer {
      metrics?.stopped()
      service?.stop()
    }
    var budget = ConnectionBudget(perHour: settings.maxConnectionsPerHour)
    var reported: [String: String] = [:]
    var failed = false
    var passes = 0
    let site = resources.coordinator?.journal
    output.line(
      "reconcile: watching \(profiles.count) profile(s) on \(central.name), windows of \(settings.window) s")
    while !signals.stopRequested {
      if signals.takeReload() { profiles = await reload(profiles) }
      let windowStart = now()
      guard let records = try await scanWindow(central, signals) else { break }
      await resources.registry.sightings(records)
      if signals.stopRequested { break }
      failed = false
      let quiet = settings.quietHours.map { $0.contains(Date(timeIntervalSince1970: now())) } ?? false
      let candidates = ReconcileDue.candidates(
        profiles: profiles, records: records, ledger: ledger, now: now(), recheck: settings.recheck)
      metrics?.judged(heard: records.count, decisions: candidates.flatMap { $0.map(\.decision) })
      for (profile, list) in zip(profiles, candidates) {
        var due: [DeviceRecord] = []
        for candidate in list where candidate.decision.isDue {
          let a = candidate.address
          if case .airDrift(let drift) = candidate.decision, reported[a] != "drift \(drift)" {
            reported[a] = "drift \(drift)"
            await output.emit(
              .init(event: "drift-seen", address: a, profile: profile.path, drift: drift),
              "\(a): drift on the air (\(drift.joined(separator: ", "))), due")
          }
          if quiet, let span = settings.quietHours {
            if reported[a] != "quiet" {
              reported[a] = "quiet"
              await output.emit(
                .init(event: "skipped-quiet", address: a, profile: profile.path),
                "\(a): due, waits for the end of --quiet-hours \(span)")
            }
            continue
          }
          if let floor = settings.minBattery, let battery = candidate.battery, battery < floor {
            if reported[a] != "battery \(battery)" {
              reported[a] = "battery \(battery)"
              await output.emit(
                .init(event: "skipped-battery", address: a, profile: profile.path, battery: battery),
                "\(a): battery \(battery) % under --min-battery \(floor), left alone")
            }
            continue
          }
          due.append(candidate.record)
        }
        let room = budget.available(now: now())
        if due.count > room {
          for record in due[room...] where reported[record.address.description] != "budget" {
            reported[record.address.description] = "budget"
            await output.emit(
              .init(event: "skipped-budget", address: record.address.description, profile: profile.path),
              "\(record.address): --max-connections-per-hour reached, waits")
          }
          due = Array(due[..<room])
        }
        guard !due.isEmpty, let interrupts = signals.campaignInterrupts() else { continue }
        budget.spend(due.count, now: now())
        let drift = Dictionary(list.map { ($0.address, $0.drift) }, uniquingKeysWith: { first, _ in first })
        let run = ReconcileSiteRuns.runID(fingerprint: profile.fingerprint, now: now(), recheck: settings.recheck)
        let dueAddresses = Set(due.map(\.address.description))
        if let site {
          await reopen(
            list.filter { dueAddresses.contains($0.address) }, run: run, site: site, ledger: ledger,
            windowAge: now() - windowStart)
        }
        let summary: CampaignSummary?
        do {
          summary = try await campaign(
            profile, due, resources: resources, interrupts: interrupts, run: site == nil ? nil : run,
            firstPass: passes == 0)
        } catch let failure as CLIFailure {
          await output.emit(
            .init(event: "profile-error", profile: profile.path, reason: failure.message), failure.message)
          summary = nil
        } catch let error where !(error is ExitCode) {
          // A journal that stopped answering mid-pass (a server restart): the service goes on, and the next
          // pass takes the devices up again from what the journal holds.
          await output.emit(
            .init(event: "pass-error", profile: profile.path, reason: "\(error)"),
            "pass of \(profile.path) cut short: \(error); the next pass goes on")
          summary = nil
        }
        signals.campaignEnded()
        guard let summary else { continue }
        for (address, outcome) in summary.outcomes.sorted(by: { $0.key < $1.key }) {
          reported[address] = nil
          if await record(outcome, address, profile, drift: drift[address] ?? [], ledger: &ledger) { failed = true }
        }
        if let site {
          await learnElsewhere(
            due: dueAddresses.sorted(), visited: Set(summary.outcomes.keys), run: run, site: site, profile: profile,
            drift: drift, ledger: &ledger)
        }
        let snapshot = ledger
        do { try await BlockingIO.run { try snapshot.save(stateDirectory: state) } } catch {
          output.line("reconcile: cannot keep the schedule in \(ReconcileLedger.path(state)): \(error)")
        }
      }
      passes += 1
      if settings.once { break }
    }
    await central.stopScans()
    output.line(signals.stopRequested ? "reconcile: stopped" : "reconcile: pass done")
    return failed
  }

  /// One scan window; nil when a stop signal ended it.
  func scanWindow(_ central: any Central, _ signals: ReconcileSignals) async throws -> [DeviceRecord]? {
    let window = settings.window
    let scan = Task { try await ScanRunner.campaignScan(central, window, []) }
    signals.watchScan { scan.cancel() }
    do {
      let records = try await scan.value
      return signals.stopRequested ? nil : records
    } catch {
      if signals.stopRequested || error is CancellationError { return nil }
      throw liveFailure(error)
    }
  }

  /// The due devices of one profile through the pipeline, as `apply` runs them; with a shared journal, as
  /// this gateway's part of the profile's shared `run` (`--gateways`/`--settle` wait on the first pass only).
  func campaign(
    _ profile: ReconcileProfile, _ records: [DeviceRecord], resources: CampaignResources,
    interrupts: AsyncStream<Void>, run: String?, firstPass: Bool
  ) async throws -> CampaignSummary {
    let (output, metrics) = (output, metrics)
    defer { metrics?.links(0) }
    let pipeline = CampaignPipeline(
      settings: .init(
        parallel: settings.parallel, attempts: 2, retryDelay: .seconds(1), scanSeconds: 0,
        place: settings.stateDirectory,
        shared: SharedRunSettings(
          run: run, gateways: firstPass ? settings.shared?.gateways ?? 1 : 1, settle: settings.shared?.settle ?? 0)),
      resources: { resources }, scan: ScanRunner.campaignScan,
      emit: { event in
        switch event {
        case .campaign(.step(let address, .writing, _), _): output.line("reconcile: \(address): writing")
        case .shared(let run, let gateway, let location):
          output.line("reconcile: this pass's due devices go through shared run \(run) on \(location) as \(gateway)")
        case .campaign(.linksInUse(let links, _), _): metrics?.links(links)
        default: break
        }
      },
      records: records, interrupts: interrupts)
    return try await CampaignFailures.translated { try await pipeline.run(profile.plan).summary }
  }

  /// Records one device's outcome in the ledger and reports it; returns whether it failed.
  func record(
    _ outcome: DeviceOutcome, _ address: String, _ profile: ReconcileProfile, drift: [String],
    ledger: inout ReconcileLedger
  ) async -> Bool {
    let (at, fingerprint, path) = (now(), profile.fingerprint, profile.path)
    switch outcome {
    case .updated(let changes), .planned(let changes):
      ledger.verified(address, fingerprint: fingerprint, drift: drift, now: at, wrote: true)
      let keys = changes.map(\.key)
      await output.emit(
        .init(event: "converged", address: address, profile: path, keys: keys),
        "\(address): converged, wrote \(keys.joined(separator: ", "))")
    case .compliant:
      ledger.verified(address, fingerprint: fingerprint, drift: drift, now: at, wrote: false)
      await output.emit(.init(event: "converged", address: address, profile: path, keys: []), "\(address): compliant")
    case .failed(let reason, .wrongPassword):
      ledger.failed(address, fingerprint: fingerprint, wrongPassword: true, now: at)
      await output.emit(
        .init(event: "wrong-password", address: address, profile: path, reason: reason),
        "\(address): \(reason); not retried until the profile changes")
      return true
    case .failed(let reason, _):
      let delay =
        ledger.failed(
          address, fingerprint: fingerprint, wrongPassword: false, now: at, base: settings.backoffBase) ?? 0
      let failures = ledger.devices[address]?.failures ?? 1
      await output.emit(
        .init(event: "write-failed", address: address, profile: path, reason: reason), "\(address): \(reason)")
      await output.emit(
        .init(event: "backoff", address: address, profile: path, seconds: delay, failures: failures),
        "\(address): failure \(failures) in a row, next try in \(Int(delay)) s")
      return true
    case .skipped(let reason):
      output.line("reconcile: \(address): skipped: \(reason)")
    case .pending:
      await output.emit(
        .init(event: "interrupted", address: address, profile: path), "\(address): stopped before it was visited")
    }
    return false
  }

  /// SIGHUP: the profiles again; one that no longer loads is reported and the old ones kept.
  func reload(_ current: [ReconcileProfile]) async -> [ReconcileProfile] {
    do {
      let fresh = try await ReconcileProfile.load(settings.profiles)
      await output.emit(.init(event: "reloaded"), "profiles reloaded")
      return fresh
    } catch {
      let message = (error as? CLIFailure)?.message ?? "\(error)"
      await output.emit(
        .init(event: "profile-error", reason: message),
        "reload refused, the profiles loaded before are kept: \(message)"
      )
      return current
    }
  }
}
