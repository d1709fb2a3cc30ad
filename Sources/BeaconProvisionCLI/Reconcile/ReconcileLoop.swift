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
    var quietHours: DailySpan? = nil
    /// `--firmware`: the firmware each converged device is kept on (`ReconcileFirmware`); nil: none.
    var firmware: ReconcileFirmware? = nil
    /// `--bootloader-timeout`: how long a device shadowed by a neighbour's bootloader waits (`shadowed`).
    var bootloaderTimeout = ReconcileFirmware.defaultBootloaderTimeout
    /// `--forget-after`: a device not heard for this many seconds leaves the schedule (`forgotten`); nil: never.
    var forgetAfter: Double? = 30 * 86400
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
    var pass = PassState(
      ledger: try await BlockingIO.run { try ReconcileLedger.load(stateDirectory: state) }, reported: [:],
      budget: ConnectionBudget(perHour: settings.maxConnectionsPerHour))
    var saved = pass.ledger
    try await resumeRollouts(profiles, site: resources.coordinator?.journal, state: &pass)
    var failed = false
    var passes = 0
    let registryWrites = BesideTheLoop()
    output.line(
      "reconcile: watching \(profiles.count) profile(s) on \(central.name), windows of \(settings.window) s")
    while !signals.stopRequested {
      if signals.takeReload() { profiles = await reload(profiles) }
      let windowStart = now()
      guard let records = try await scanWindow(central, signals) else { break }
      let (registry, seen) = (resources.registry, Date())
      registryWrites.start { await registry.sightings(records, at: seen) }
      if signals.stopRequested { break }
      failed = false
      await noteDepartures(
        records, firstWindow: passes == 0 && !settings.once, shared: resources.coordinator != nil, state: &pass)
      let quiet = settings.quietHours.map { $0.contains(Date(timeIntervalSince1970: now())) } ?? false
      let candidates = ReconcileDue.candidates(
        profiles: profiles, records: records, ledger: pass.ledger, now: now(), recheck: settings.recheck)
      metrics?.judged(heard: records.count, decisions: candidates.flatMap { $0.map(\.decision) })
      let silent = ReconcileLoop.heardOnlyAsBootloaders(
        CampaignPipeline.bootloadersHeard(in: records), candidates: candidates)
      if let firmware = settings.firmware {
        await reportStuckBootloaders(
          silent, profiles: profiles, firmware: firmware, journal: resources.journal, state: &pass)
      }
      for (profile, list) in zip(profiles, candidates) {
        if try await profilePass(
          profile, list, resources: resources, signals: signals, quiet: quiet, firstPass: passes == 0,
          windowStart: windowStart, state: &pass)
        {
          failed = true
        }
        if let firmware = settings.firmware, resources.coordinator == nil, !quiet, pass.firmwareHoldUntil <= now(),
          !signals.stopRequested,
          try await finishLeftInBootloaders(
            silent, profile: profile, firmware: firmware, resources: resources, signals: signals, state: &pass)
        {
          failed = true
        }
        if let firmware = settings.firmware, !signals.stopRequested {
          let firmwareFailed = try await firmwarePass(
            firmware, profile: profile, candidates: list, silent: silent,
            resources: resources, signals: signals, quiet: quiet, windowStart: windowStart, state: &pass)
          if firmwareFailed { failed = true }
        }
        // Written when it changed only: a gateway's SD card is not rewritten every window.
        if pass.ledger != saved {
          let snapshot = pass.ledger
          do {
            try await BlockingIO.run { try snapshot.save(stateDirectory: state) }
            saved = snapshot
          } catch {
            output.line("reconcile: cannot keep the schedule in \(ReconcileLedger.path(state)): \(error)")
          }
        }
      }
      passes += 1
      if settings.once { break }
    }
    await central.stopScans()
    // One pass (cron): its sightings are in the registry before the process ends. A stop waits a little only,
    // so a journal server that stopped answering does not hold it.
    if settings.once, !signals.stopRequested {
      await registryWrites.wait()
    } else {
      await registryWrites.wait(atMost: 3)
    }
    output.line(signals.stopRequested ? "reconcile: stopped" : "reconcile: pass done")
    return failed
  }

  /// The schedule and reports a pass carries from one profile's part to the next.
  struct PassState {
    var ledger: ReconcileLedger
    var reported: [String: String]
    var budget: ConnectionBudget
    /// `--firmware`: catalogue or package failures in a row, and no firmware pass before this time.
    var firmwareErrors = 0
    var firmwareHoldUntil = 0.0
    /// The shared firmware runs this process took part in: `--gateways`/`--settle` wait on its first one only.
    var firmwareRunsJoined: Set<String> = []
    /// Rollout outcomes (rollout key → address → failed) a shared journal could not take: recorded with the next,
    /// under the same settling token (its COMMIT may have been made though the journal never answered).
    var rolloutOutcomesKept: [String: (ended: [String: Bool], token: String)] = [:]
    /// Devices heard only as their DFU bootloader, since when, and those `firmware-in-bootloader` was said of in
    /// this stay (`reportStuckBootloaders`): its own set, not `reported`, whose one reason per device a
    /// `skipped-maintenance` or `skipped-budget` of the same device would otherwise replace, every window.
    var bootloaderSince: [String: Double] = [:]
    var bootloaderReported: Set<String> = []

    /// Whether `reason` is new for `address` (then remembered): a device left alone for one reason is
    /// reported once, not every window; a visit's outcome clears it.
    mutating func firstReport(_ address: String, _ reason: String) -> Bool {
      guard reported[address] != reason else { return false }
      reported[address] = reason
      return true
    }
  }

  /// With `--forget-after`: the window's devices were heard; those the schedule has not heard for that long
  /// leave it, each reported `forgotten` (`ReconcileLedger+Departures`). A service's first window discounts the
  /// time it was not running (not with `--once`: under cron the runs are the schedule, and the time between
  /// them counts). On a shared journal the site's rollout is the journal's, not the schedule's to change.
  func noteDepartures(_ records: [DeviceRecord], firstWindow: Bool, shared: Bool, state: inout PassState) async {
    guard let after = settings.forgetAfter else { return }
    let (at, resolution) = (now(), ReconcileLedger.heardResolution(forgetAfter: after))
    if firstWindow { state.ledger.discountDowntime(now: at, resolution: resolution) }
    state.ledger.heard(records.map(\.address.description), now: at, resolution: resolution)
    for address in state.ledger.forget(notHeardFor: after, now: at, localRollouts: !shared) {
      state.reported[address] = nil  // back one day, it is reported afresh
      await output.emit(
        .init(event: "forgotten", address: address, seconds: after),
        "\(address): not heard for \(Self.seconds(after)), left the schedule (a check finds it afresh if it comes back)"
      )
    }
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
