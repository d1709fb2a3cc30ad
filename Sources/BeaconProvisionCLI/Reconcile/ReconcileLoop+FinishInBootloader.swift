import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import FleetIO
import Foundation

/// [I] `reconcile` finishing a device its own failed update left in its DFU bootloader. Such a device is heard
/// only as that bootloader (under the name this tool gave it, `heardOnlyAsBootloaders`); its application is
/// silent, so the firmware pass, which works on the devices it hears, never came back to it — before, it waited
/// for an operator to run the command `firmware-in-bootloader` prints. Now, once the device's firmware backoff
/// here has run (`ReconcileLedger.Entry.firmwareRetryAt`):
/// - On this gateway's journal, the run that left it (`CampaignPipeline.runLeaving`, among the journal's last 50
///   firmware runs) is resumed for that device alone (`CampaignPipeline.Settings.resumeKeeps`: the run's other
///   devices keep their own schedule), as `dfu update --resume RUN` would: the package that run chose, the
///   transfer resumed at the bootloader advertising the device's name (docs/protocols/nordic-dfu.md §2.5).
///   Only a run made from this firmware source (its recipe: the catalogue's place and the firmware asked for)
///   and a device whose schedule was verified under this profile.
/// - On a shared journal, where a failed row is its gateway's alone and no claim hands it out
///   (`isCutShortMidTransfer`), the gateway that recorded the failure reopens the row in the profile's firmware
///   run of this `--recheck` period, keeping the step (`reopenLeftInBootloaders`), and the run's takeovers
///   finish it. A row of an earlier period is left to the report.
///
/// Quiet hours, the maintenance window and the hourly budget hold it as they hold any firmware check. Not with
/// `--rollout`: the device's failure already counted in its stage, which a finish would not undo, and a stopped
/// rollout connects to nothing more — there the report stands. The outcome is kept and reported as a check's
/// (`recordFirmware`): a failure backs off again, and a device still there after `--bootloader-timeout` is
/// reported once in its stay by `firmware-in-bootloader`.
extension ReconcileLoop {
  /// The devices of `silent` to finish now for `profile`, by the run that left each.
  func leftInBootloaders(
    _ silent: [String: DeviceRecord], profile: ReconcileProfile, firmware: ReconcileFirmware,
    journal: any CampaignJournal, ledger: ReconcileLedger
  ) async -> [(run: String, devices: [String])] {
    let at = now()
    let due = silent.keys.sorted().filter {
      ledger.devices[$0]?.fingerprint == profile.fingerprint && ledger.firmwareRetryDue($0, now: at)
    }
    // The recipe only when a device is due: most windows have none.
    guard !due.isEmpty,
      let recipe = try? await firmware.plan(addresses: [], passwords: profile.plan.passwords, minimumBattery: nil)
        .recipe().text
    else { return [] }
    var byRun: [String: [String]] = [:]
    for device in due {
      guard let run = await CampaignPipeline.runLeaving(device, journal: journal), run.recipe == recipe else {
        continue
      }
      byRun[run.id, default: []].append(device)
    }
    return byRun.sorted { $0.key < $1.key }.map { (run: $0.key, devices: $0.value) }
  }

  /// On a shared journal: the devices of `silent` whose firmware this gateway failed in `run` (the profile's
  /// firmware run) mid-transfer, its backoff for them run, are reopened there with their step kept
  /// (`PostgresJournal.reopenInBootloader`), for `bootloaderTakeovers` to find.
  func reopenLeftInBootloaders(
    _ silent: [String: DeviceRecord], profile: ReconcileProfile, firmware: ReconcileFirmware, run: String,
    site: PostgresJournal, state: inout PassState
  ) async {
    let at = now()
    // Only when a takeover can start now: a row reopened to wait for the window would say `transferring` for
    // hours, and a visit after the bootloader gave up would take the application's silence for the transfer's.
    guard firmware.rollout == nil, state.budget.available(now: at) > 0,
      firmware.maintenance.map({ $0.contains(Date(timeIntervalSince1970: at)) }) ?? true
    else { return }
    for device in silent.keys.sorted() {
      // No fingerprint check: the row in the profile's firmware run proves the device is the profile's, and a
      // gateway that took the device over (and failed it) never configured it.
      guard state.ledger.firmwareRetryDue(device, now: at),
        (try? await site.reopenInBootloader(run: run, address: device)) == true
      else { continue }
      let reason = "left in its DFU bootloader"
      await output.emit(
        .init(event: "reopened", address: device, reason: reason), "\(device): reopened in shared run \(run): \(reason)"
      )
    }
  }

  /// Resumes, device by device's run, what `leftInBootloaders` found, within the hourly budget and the
  /// maintenance window; returns whether a device failed.
  func finishLeftInBootloaders(
    _ silent: [String: DeviceRecord], profile: ReconcileProfile, firmware: ReconcileFirmware,
    resources: CampaignResources, signals: ReconcileSignals, state: inout PassState
  ) async throws -> Bool {
    guard firmware.rollout == nil else { return false }
    let found = await leftInBootloaders(
      silent, profile: profile, firmware: firmware, journal: resources.journal, ledger: state.ledger)
    var failed = false
    for (index, (run, devices)) in found.enumerated() {
      // Asked before each run's campaign: a window that closes between two starts no more.
      if let window = firmware.maintenance, !window.contains(Date(timeIntervalSince1970: now())) {
        for address in found[index...].flatMap(\.devices) where state.firstReport(address, "maintenance") {
          await output.emit(
            .init(event: "skipped-maintenance", address: address, profile: profile.path),
            "\(address): left in its DFU bootloader, waits for --maintenance-window \(window)")
        }
        break
      }
      let taking = Array(devices.prefix(state.budget.available(now: now())))
      for address in devices.dropFirst(taking.count) where state.firstReport(address, "budget") {
        await output.emit(
          .init(event: "skipped-budget", address: address, profile: profile.path),
          "\(address): left in its DFU bootloader, --max-connections-per-hour reached, waits")
      }
      guard !taking.isEmpty, let interrupts = signals.campaignInterrupts() else { break }
      state.budget.spend(taking.count, now: now())
      for address in taking {
        output.line("reconcile: \(address): left in its DFU bootloader by run \(run); resuming that run for it")
      }
      let summary: CampaignSummary
      do {
        summary = try await firmwareCampaign(
          firmware.plan(addresses: taking, passwords: profile.plan.passwords, minimumBattery: nil),
          taking.compactMap { silent[$0] }, resources: resources, interrupts: interrupts,
          resuming: (run, Set(taking)))
      } catch let exit as ExitCode {
        signals.campaignEnded()
        throw exit
      } catch {
        // The run could not be resumed (its package is gone from the cache and the catalogue cannot be read):
        // each device's check failed, and backs off.
        signals.campaignEnded()
        let reason = "resuming run \(run): " + ((error as? CLIFailure)?.message ?? "\(error)")
        for address in taking {
          _ = await recordFirmware(.failed(reason, .transient), address, profile, firmware, ledger: &state.ledger)
        }
        failed = true
        continue
      }
      signals.campaignEnded()
      for address in taking {
        // Not visited at all (the run no longer holds it unfinished): a failed check too, so that it backs off
        // rather than being tried every window.
        let outcome = summary.outcomes[address] ?? .failed("run \(run) did not visit it", .transient)
        state.reported[address] = nil
        if await recordFirmware(outcome, address, profile, firmware, ledger: &state.ledger) { failed = true }
      }
    }
    return failed
  }
}
