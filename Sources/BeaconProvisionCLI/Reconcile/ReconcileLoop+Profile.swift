import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation

/// A profile's part of a reconcile pass: its due devices through the same `CampaignPipeline` as `apply`
/// (with a shared journal, as this gateway's part of the profile's shared run), and what came of each kept in
/// the ledger and reported.
extension ReconcileLoop {
  /// One profile's part of a pass: its due devices (minus those quiet hours, the battery floor or the hourly
  /// budget hold back) through the pipeline, their outcomes in the ledger; returns whether a device failed.
  func profilePass(
    _ profile: ReconcileProfile, _ list: [ReconcileDue.Candidate], resources: CampaignResources,
    signals: ReconcileSignals, quiet: Bool, firstPass: Bool, windowStart: Double, state: inout PassState
  ) async throws -> Bool {
    let site = resources.coordinator?.journal
    var failed = false
    var due: [DeviceRecord] = []
    for candidate in list where candidate.decision.isDue {
      let a = candidate.address
      if case .airDrift(let drift) = candidate.decision, state.firstReport(a, "drift \(drift)") {
        await output.emit(
          .init(event: "drift-seen", address: a, profile: profile.path, drift: drift),
          "\(a): drift on the air (\(drift.joined(separator: ", "))), due")
      }
      if quiet, let span = settings.quietHours {
        if state.firstReport(a, "quiet") {
          await output.emit(
            .init(event: "skipped-quiet", address: a, profile: profile.path),
            "\(a): due, waits for the end of --quiet-hours \(span)")
        }
        continue
      }
      if let floor = settings.minBattery, let battery = candidate.battery, battery < floor {
        if state.firstReport(a, "battery \(battery)") {
          await output.emit(
            .init(event: "skipped-battery", address: a, profile: profile.path, battery: battery),
            "\(a): battery \(battery) % under --min-battery \(floor), left alone")
        }
        continue
      }
      due.append(candidate.record)
    }
    let room = state.budget.available(now: now())
    if due.count > room {
      for record in due[room...] where state.firstReport(record.address.description, "budget") {
        await output.emit(
          .init(event: "skipped-budget", address: record.address.description, profile: profile.path),
          "\(record.address): --max-connections-per-hour reached, waits")
      }
      due = Array(due[..<room])
    }
    guard !due.isEmpty, let interrupts = signals.campaignInterrupts() else { return false }
    state.budget.spend(due.count, now: now())
    let drift = Dictionary(list.map { ($0.address, $0.drift) }, uniquingKeysWith: { first, _ in first })
    let run = ReconcileSiteRuns.runID(fingerprint: profile.fingerprint, now: now(), recheck: settings.recheck)
    let dueAddresses = Set(due.map(\.address.description))
    if let site {
      let candidates = list.filter { dueAddresses.contains($0.address) }.map { ($0.address, $0.decision) }
      await reopen(run: run, site: site, windowAge: now() - windowStart) { [ledger = state.ledger] rows in
        ReconcileSiteRuns.reopenings(due: candidates, rows: rows, ledger: ledger)
      }
    }
    let summary: CampaignSummary?
    do {
      summary = try await campaign(
        profile, due, resources: resources, interrupts: interrupts, run: site == nil ? nil : run,
        firstPass: firstPass)
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
    guard let summary else { return false }
    for (address, outcome) in summary.outcomes.sorted(by: { $0.key < $1.key }) {
      state.reported[address] = nil
      if await record(outcome, address, profile, drift: drift[address] ?? [], ledger: &state.ledger) { failed = true }
    }
    if let site {
      await learnElsewhere(
        due: dueAddresses.sorted(), visited: Set(summary.outcomes.keys), run: run, site: site, profile: profile,
        drift: drift, ledger: &state.ledger)
    }
    return failed
  }

  /// The due devices of one profile through the pipeline, as `apply` runs them; with a shared journal, as
  /// this gateway's part of the profile's shared `run` (`--gateways`/`--settle` wait on the first pass only).
  func campaign(
    _ profile: ReconcileProfile, _ records: [DeviceRecord], resources: CampaignResources,
    interrupts: AsyncStream<Void>, run: String?, firstPass: Bool
  ) async throws -> CampaignSummary {
    let shared = SharedRunSettings(
      run: run, gateways: firstPass ? settings.shared?.gateways ?? 1 : 1, settle: settings.shared?.settle ?? 0)
    return try await passCampaign(profile.plan, records, resources: resources, interrupts: interrupts, shared: shared) {
      switch $0 {
      case .campaign(.step(let address, .writing, _), _): "\(address): writing"
      case .shared(let run, let gateway, let location):
        "this pass's due devices go through shared run \(run) on \(location) as \(gateway)"
      default: nil
      }
    }
  }

  /// One campaign of a pass on the window's `records` (the pipeline does not scan again), as `apply` and
  /// `dfu update` run theirs: `line` says what an event prints on standard error (nil: nothing); the links in
  /// use go to the metrics; `mayStart` false starts no more devices (`Campaign.Options.mayStart`).
  func passCampaign(
    _ plan: some CampaignPlan, _ records: [DeviceRecord], resources: CampaignResources,
    interrupts: AsyncStream<Void>, shared: SharedRunSettings = SharedRunSettings(),
    mayStart: (@Sendable () -> Bool)? = nil, resuming: (run: String, devices: Set<String>)? = nil,
    line: @escaping @Sendable (PipelineEvent) -> String?
  ) async throws -> CampaignSummary {
    let (output, metrics) = (output, metrics)
    defer { metrics?.links(0) }
    var pipelineSettings = CampaignPipeline.Settings(
      parallel: settings.parallel, attempts: 2, retryDelay: .seconds(1), scanSeconds: 0,
      place: settings.stateDirectory, resume: resuming?.run, shared: shared)
    pipelineSettings.resumeKeeps = resuming?.devices
    pipelineSettings.mayStart = mayStart
    pipelineSettings.waitsOutShadows = false  // the ledger tries a shadowed device in a later pass
    let pipeline = CampaignPipeline(
      settings: pipelineSettings,
      resources: { resources }, scan: ScanRunner.campaignScan,
      emit: { event in
        if case .campaign(.linksInUse(let links, _), _) = event { metrics?.links(links) }
        if let text = line(event) { output.line("reconcile: " + text) }
      },
      records: records, interrupts: interrupts)
    return try await CampaignFailures.translated { try await pipeline.run(plan).summary }
  }

  /// A neighbour's bootloader, left by its failed update, answered at `address` (here, or on another gateway:
  /// `elsewhere`) until its inactivity timeout: not this device's failure (as `firmware-shadowed` in the
  /// firmware pass). It waits `--bootloader-timeout` in `ledger`, and that is reported.
  func shadowed(
    _ address: String, _ profile: ReconcileProfile, reason: String, elsewhere: Bool = false,
    ledger: inout ReconcileLedger
  ) async {
    let delay = ledger.shadowed(address, now: now(), timeout: settings.bootloaderTimeout)
    await output.emit(
      .init(event: "shadowed", address: address, profile: profile.path, reason: reason, seconds: delay),
      "\(address): \(reason)\(elsewhere ? " (on another gateway)" : ""); next try in \(ReconcileLoop.seconds(delay)), "
        + "not counted as a failure")
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
    case .failed(let reason, .bootloaderAtAddress):
      await shadowed(address, profile, reason: reason, ledger: &ledger)
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
        "\(address): failure \(failures) in a row, next try in \(ReconcileLoop.seconds(delay))")
      return true
    case .skipped(let reason):
      // The profile's rules once connected to (model, firmware): not connected to again before the recheck.
      ledger.notSelected(address, fingerprint: fingerprint, now: at)
      output.line("reconcile: \(address): skipped: \(reason); checked again after --recheck or a profile change")
    case .pending:
      await output.emit(
        .init(event: "interrupted", address: address, profile: path), "\(address): stopped before it was visited")
    }
    return false
  }
}
