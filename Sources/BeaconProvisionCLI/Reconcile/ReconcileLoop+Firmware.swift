import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Profiles

/// The firmware part of a pass (`ReconcileFirmware`): after a profile's devices were visited, its converged
/// devices whose firmware is due go through one catalogue campaign, inside the maintenance window and the
/// hourly budget; what came of each is kept in the ledger and reported (firmware-updated, firmware-current,
/// firmware-failed with its backoff, skipped-maintenance). With a shared journal the checks go through the
/// profile's firmware run (`ReconcileSiteRuns+Firmware`), as the configuration goes through its own run.
extension ReconcileLoop {
  /// Runs the firmware part for `profile`'s `candidates` (the window's devices it selects) and, on a shared
  /// journal, for the devices another gateway left in their bootloaders mid-transfer in the profile's firmware
  /// run (`bootloaderTakeovers`, from the window's devices heard only as their bootloader, `silent`); returns
  /// whether a device failed.
  func firmwarePass(
    _ firmware: ReconcileFirmware, profile: ReconcileProfile, candidates: [ReconcileDue.Candidate],
    silent: [String: DeviceRecord] = [:], resources: CampaignResources, signals: ReconcileSignals, quiet: Bool,
    windowStart: Double, state: inout PassState
  ) async throws -> Bool {
    let at = now()
    if state.firmwareHoldUntil > at { return false }
    let site = resources.coordinator?.journal
    let run = ReconcileSiteRuns.firmwareRunID(
      fingerprint: profile.fingerprint, source: firmware.source, now: at, recheck: settings.recheck)
    var takeovers: [BootloaderTakeover] = []
    if let site, !quiet {
      await reopenLeftInBootloaders(silent, profile: profile, firmware: firmware, run: run, site: site, state: &state)
      takeovers = await bootloaderTakeovers(silent, run: run, site: site)
    }
    let floor = ReconcileFirmware.batteryFloor(settings.minBattery)
    var due: [ReconcileDue.Candidate] = []
    for candidate in candidates {
      // Configured under this profile and in good standing first (`FirmwareDecision.waitsForConfiguration`).
      let decision = state.ledger.firmwareDecision(
        candidate.address, fingerprint: profile.fingerprint, source: firmware.source, now: at,
        recheck: settings.recheck)
      guard decision.isDue else { continue }
      // The floor is judged on the advertisement, as dfu update does, before any connection: a device under it
      // (or whose battery the window did not carry) stays due, not checked.
      if let floor, (candidate.battery ?? -1) < floor {
        let shown = candidate.battery.map { "\($0) %" } ?? "unknown (not in its advertisements)"
        if state.firstReport(candidate.address, "firmware battery \(shown)") {
          await output.emit(
            .init(
              event: "skipped-battery", address: candidate.address, profile: profile.path, battery: candidate.battery),
            "\(candidate.address): firmware due, battery \(shown) under the floor of \(floor) %, waits")
        }
        continue
      }
      due.append(candidate)
    }
    guard !due.isEmpty || !takeovers.isEmpty, !quiet else { return false }
    if let window = firmware.maintenance, !window.contains(Date(timeIntervalSince1970: at)) {
      for address in due.map(\.address) + takeovers.map(\.device) where state.firstReport(address, "maintenance") {
        await output.emit(
          .init(event: "skipped-maintenance", address: address, profile: profile.path),
          "\(address): firmware due, waits for --maintenance-window \(window)")
      }
      return false
    }
    // The budget serves the takeovers first: a device in its bootloader is out of service until it is finished.
    let room = state.budget.available(now: at)
    let taking = Array(takeovers.prefix(room))
    let dueRoom = room - taking.count
    let waiting = takeovers.dropFirst(room).map(\.device) + due.dropFirst(dueRoom).map(\.address)
    for address in waiting where state.firstReport(address, "budget") {
      await output.emit(
        .init(event: "skipped-budget", address: address, profile: profile.path),
        "\(address): firmware due, --max-connections-per-hour reached, waits")
    }
    var chosen = Array(due.prefix(dueRoom))
    // With a shared journal, this gateway's part of the profile's firmware run (`ReconcileSiteRuns+Firmware`),
    // and the site's rollout: a takeover's device was admitted when its transfer began.
    // The rollout admits after the budget's cut, so no member waits on a check the budget put off.
    if let plan = firmware.rollout {
      chosen = await admitToRollout(
        chosen, plan: plan, firmware: firmware, profile: profile, site: site, state: &state)
    } else if let site, !chosen.isEmpty, let hold = await siteRolloutHold(profile, firmware, site: site) {
      for candidate in chosen where state.firstReport(candidate.address, hold) {
        await output.emit(
          .init(event: "skipped-rollout", address: candidate.address, profile: profile.path, reason: hold),
          "\(candidate.address): firmware due, \(hold)")
      }
      chosen = []
    }
    guard !chosen.isEmpty || !taking.isEmpty, let interrupts = signals.campaignInterrupts() else { return false }
    state.budget.spend(chosen.count + taking.count, now: at)
    let addresses = chosen.map(\.address) + taking.map(\.device)
    // A gateway's first firmware run waits for `--gateways` to join it (at most `--settle`), as the first
    // configuration pass does: a gateway claiming first would otherwise take the others' nearest devices. Not
    // every period's run: a gateway with no firmware due never joins one, and each would cost the others --settle.
    let waitFor = site != nil && state.firmwareRunsJoined.isEmpty ? settings.shared?.gateways ?? 1 : 1
    if site != nil { state.firmwareRunsJoined.insert(run) }
    if let site {
      await reopen(run: run, site: site, windowAge: now() - windowStart) {
        [ledger = state.ledger, due = chosen.map(\.address)] rows in
        ReconcileSiteRuns.firmwareReopenings(due: due, rows: rows, ledger: ledger)
      }
    }
    // The window is asked again before each device: one that closes mid-pass starts no more transfers, and
    // the devices started finish theirs (a transfer is never cut for the clock).
    var gate: MaintenanceGate?
    var mayStart: (@Sendable () -> Bool)?
    if let window = firmware.maintenance {
      let opened = MaintenanceGate(window: window, clock: now)
      (gate, mayStart) = (opened, { opened.mayStart() })
    }
    let summary: CampaignSummary
    do {
      summary = try await firmwareCampaign(
        firmware.plan(addresses: addresses, passwords: profile.plan.passwords, minimumBattery: settings.minBattery),
        Self.records(chosen, taking), resources: resources, interrupts: interrupts,
        shared: SharedRunSettings(
          run: site == nil ? nil : run, gateways: waitFor, settle: settings.shared?.settle ?? 0),
        mayStart: mayStart)
    } catch let exit as ExitCode {
      // A second stop signal abandoned the campaign (status 130), as it does a configuration pass: not the
      // catalogue's failure, and the service ends now.
      signals.campaignEnded()
      throw exit
    } catch {
      signals.campaignEnded()
      // The catalogue or a package could not be had: firmware waits, backing off as a device does, so an
      // unreachable server is not asked again every window.
      state.firmwareErrors += 1
      let delay = ReconcileLedger.backoff(failures: state.firmwareErrors, base: settings.backoffBase)
      state.firmwareHoldUntil = now() + delay
      let reason = (error as? CLIFailure)?.message ?? "\(error)"
      await output.emit(
        .init(
          event: "firmware-error", profile: profile.path, reason: reason, seconds: delay,
          failures: state.firmwareErrors),
        "firmware pass of \(profile.path) cut short: \(reason); firmware waits \(ReconcileLoop.seconds(delay))")
      return true
    }
    signals.campaignEnded()
    state.firmwareErrors = 0
    var failed = false
    // The window closed, and no stop came (a stop's pending devices are `interrupted`).
    let closedOn = signals.stopRequested ? nil : gate.flatMap { $0.turnedAway ? $0.window : nil }
    if closedOn != nil {
      // Never connected to, the pending devices and (on a shared journal) those this gateway never claimed give
      // their connections back to the hourly budget; the latter are not reported: another gateway may have them.
      state.budget.refund(addresses.filter { (summary.outcomes[$0] ?? .pending) == .pending }.count, spentAt: at)
    }
    for (address, outcome) in summary.outcomes.sorted(by: { $0.key < $1.key }) {
      if outcome == .pending, let closedOn {
        await windowClosed(address, closedOn, profile, state: &state)
        continue
      }
      state.reported[address] = nil
      if await recordFirmware(outcome, address, profile, firmware, ledger: &state.ledger) { failed = true }
    }
    var elsewhere: [String: Bool] = [:]
    if let site {
      elsewhere = await learnFirmwareElsewhere(
        due: addresses, visited: Set(summary.outcomes.keys), run: run, site: site, profile: profile,
        firmware: firmware, ledger: &state.ledger)
    }

    if let plan = firmware.rollout {
      await recordRollout(
        summary.outcomes, elsewhere: elsewhere, plan: plan, firmware: firmware, profile: profile, site: site,
        state: &state)
    }
    return failed
  }

  /// One catalogue campaign over `records` (the window's, so the pipeline does not scan again).
  func firmwareCampaign(
    _ plan: FirmwareCampaignPlan, _ records: [DeviceRecord], resources: CampaignResources,
    interrupts: AsyncStream<Void>, shared: SharedRunSettings = SharedRunSettings(),
    mayStart: (@Sendable () -> Bool)? = nil, resuming: (run: String, devices: Set<String>)? = nil
  ) async throws -> CampaignSummary {
    try await passCampaign(
      plan, records, resources: resources, interrupts: interrupts, shared: shared, mayStart: mayStart,
      resuming: resuming
    ) {
      switch $0 {
      case .campaign(.step(let address, .transferring, _), _): "\(address): installing firmware"
      // A wait inside a visit (a neighbour being updated, the new version read back again): said, since it
      // may last seconds to minutes.
      case .campaign(.waiting(let address, let reason), _): "\(address): firmware: \(reason)"
      case .surveyLeft(let left):
        "firmware survey: not read, left to nearer gateways: " + PipelineEvent.text(left: left)
      case .takingOverFromBootloader(let address, let bootloader, let name, let run):
        "firmware: " + PipelineEvent.text(takingOver: address, bootloader: bootloader, name: name, run: run)
      case .recalledLeftMidTransfer(let recalled, let unknown):
        "firmware survey: " + PipelineEvent.text(recalled: recalled, unknown: unknown)
      case .packageReady(let file, let version, let model, let hardware, let downloaded, _, let sha256):
        "firmware \(file) (\(version), \(model) \(hardware)) \(downloaded ? "downloaded" : "from the cache"), sha256 \(sha256)"
      default: nil
      }
    }
  }

  /// Keeps one device's firmware outcome in the ledger and reports it; returns whether it failed.
  func recordFirmware(
    _ outcome: DeviceOutcome, _ address: String, _ profile: ReconcileProfile, _ firmware: ReconcileFirmware,
    ledger: inout ReconcileLedger
  ) async -> Bool {
    let (at, path) = (now(), profile.path)
    switch outcome {
    case .updated(let changes), .planned(let changes):
      ledger.firmwareChecked(address, source: firmware.source, now: at)
      let version = changes.first { $0.key == "ver" }
      let (from, to) = (version?.old.map(Self.text), version.map { Self.text($0.new) })
      await output.emit(
        .init(event: "firmware-updated", address: address, profile: path, from: from, to: to),
        "\(address): firmware updated \(from ?? "?") → \(to ?? "?"), read back from the device")
    case .compliant, .skipped:
      ledger.firmwareChecked(address, source: firmware.source, now: at)
      var reason = "firmware current"
      if case .skipped(let why) = outcome { reason = why }
      await output.emit(
        .init(event: "firmware-current", address: address, profile: path, reason: reason),
        "\(address): firmware: \(reason)")
    case .failed(let reason, .wrongPassword):
      ledger.failed(address, fingerprint: profile.fingerprint, wrongPassword: true, now: at)
      await output.emit(
        .init(event: "wrong-password", address: address, profile: path, reason: reason),
        "\(address): \(reason); not retried until the profile changes")
      return true
    case .failed(let reason, .bootloaderAtAddress):
      let delay = ledger.firmwareShadowed(address, now: at, timeout: firmware.bootloaderTimeout)
      await output.emit(
        .init(event: "firmware-shadowed", address: address, profile: path, reason: reason, seconds: delay),
        "\(address): firmware: \(reason); next try in \(ReconcileLoop.seconds(delay)), the neighbour's after it")
      return true
    case .failed(let reason, _):
      let delay = ledger.firmwareFailed(address, now: at, base: settings.backoffBase)
      let failures = ledger.devices[address]?.firmwareFailures ?? 1
      await output.emit(
        .init(event: "firmware-failed", address: address, profile: path, reason: reason),
        "\(address): firmware: \(reason)")
      await output.emit(
        .init(event: "backoff", address: address, profile: path, seconds: delay, failures: failures),
        "\(address): firmware failure \(failures) in a row, next try in \(ReconcileLoop.seconds(delay))")
      return true
    case .pending:
      await output.emit(
        .init(event: "interrupted", address: address, profile: path),
        "\(address): stopped before its firmware was checked")
    }
    return false
  }

  /// `window` closed before `address`'s turn (`MaintenanceGate`): still due, for the next window; said once.
  func windowClosed(_ address: String, _ window: DailySpan, _ profile: ReconcileProfile, state: inout PassState) async {
    guard state.firstReport(address, "maintenance") else { return }
    await output.emit(
      .init(event: "skipped-maintenance", address: address, profile: profile.path),
      "\(address): firmware due, --maintenance-window \(window) closed before its turn, waits for the next")
  }

  /// A backoff's length as a line shows it: whole seconds, or one decimal under ten ("0.5 s", not "0 s").
  static func seconds(_ value: Double) -> String {
    value >= 10 || value == value.rounded() ? "\(Int(value.rounded())) s" : String(format: "%.1f s", value)
  }

  /// A setting's value as the reports show it (a version is text).
  static func text(_ value: SettingValue) -> String {
    if case .text(let text) = value { return text }
    return "\(value)"
  }
}
