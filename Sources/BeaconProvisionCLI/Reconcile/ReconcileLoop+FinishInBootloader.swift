import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import FleetIO
import Foundation

/// [I] `reconcile` finishing a device its own failed update left in its DFU bootloader, on this gateway's
/// journal. Such a device is heard only as that bootloader (under the name this tool gave it,
/// `heardOnlyAsBootloaders`); its application is silent, so the firmware pass, which works on the devices it
/// hears, never came back to it — before, it waited for an operator to run the command `firmware-in-bootloader`
/// prints. Now, once the device's firmware backoff has run (`ReconcileLedger.Entry.firmwareRetryAt`), the run
/// that left it (`CampaignPipeline.runLeaving`) is resumed for that device alone
/// (`CampaignPipeline.Settings.resumeKeeps`: the run's other devices keep their own schedule), as `dfu update
/// --resume RUN` would: the package that run chose, the transfer resumed at the bootloader advertising the
/// device's name (docs/protocols/nordic-dfu.md §2.5). Only a run made from this firmware source (its recipe:
/// the catalogue's place and the firmware asked for) and a device whose schedule was verified under this
/// profile. Quiet hours, the maintenance window and the hourly budget hold it as they hold any firmware
/// check. Its outcome is kept and reported as a check's (`recordFirmware`): a failure backs off again, and a
/// device no resume has finished is still reported once by `firmware-in-bootloader` after
/// `--bootloader-timeout`. On a shared journal a failed row is its gateway's alone and no claim hands it out
/// (`isCutShortMidTransfer`): there the gateway that failed it reopens its row, keeping the step, once its backoff
/// has run (`reopenLeftInBootloaders`), and the run's takeovers finish it.
extension ReconcileLoop {
  /// The devices of `silent` to finish now for `profile`, by the run that left each.
  func leftInBootloaders(
    _ silent: [String: DeviceRecord], profile: ReconcileProfile, firmware: ReconcileFirmware,
    journal: any CampaignJournal, ledger: ReconcileLedger
  ) async -> [(run: String, devices: [String])] {
    let at = now()
    let plan = firmware.plan(addresses: [], passwords: profile.plan.passwords, minimumBattery: nil)
    guard let recipe = try? await plan.recipe().text else { return [] }
    var byRun: [String: [String]] = [:]
    for device in silent.keys.sorted() {
      guard let entry = ledger.devices[device], entry.fingerprint == profile.fingerprint,
        (entry.firmwareFailures ?? 0) > 0, (entry.firmwareRetryAt ?? 0) <= at,
        let run = await CampaignPipeline.runLeaving(device, journal: journal), run.recipe == recipe
      else { continue }
      byRun[run.id, default: []].append(device)
    }
    return byRun.sorted { $0.key < $1.key }.map { (run: $0.key, devices: $0.value) }
  }

  /// On a shared journal: the devices of `silent` whose firmware this gateway failed in `run` (the profile's
  /// firmware run) mid-transfer, schedule verified under `profile`, backoff run, are reopened there with their
  /// step kept (`PostgresJournal.reopenInBootloader`), for `bootloaderTakeovers` to find.
  func reopenLeftInBootloaders(
    _ silent: [String: DeviceRecord], profile: ReconcileProfile, run: String, site: PostgresJournal,
    ledger: ReconcileLedger
  ) async {
    let at = now()
    for device in silent.keys.sorted() {
      guard let entry = ledger.devices[device], entry.fingerprint == profile.fingerprint,
        (entry.firmwareFailures ?? 0) > 0, (entry.firmwareRetryAt ?? 0) <= at,
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
    let found = await leftInBootloaders(
      silent, profile: profile, firmware: firmware, journal: resources.journal, ledger: state.ledger)
    guard !found.isEmpty else { return false }
    if let window = firmware.maintenance, !window.contains(Date(timeIntervalSince1970: now())) {
      for address in found.flatMap(\.devices) where state.firstReport(address, "maintenance") {
        await output.emit(
          .init(event: "skipped-maintenance", address: address, profile: profile.path),
          "\(address): left in its DFU bootloader, waits for --maintenance-window \(window)")
      }
      return false
    }
    var failed = false
    for (run, devices) in found {
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
        // A resume that failed leaves the device where it was: its `firmware-in-bootloader` is not said again.
        if case .failed = outcome {
          failed = true
        } else {
          state.reported[address] = nil
        }
        _ = await recordFirmware(outcome, address, profile, firmware, ledger: &state.ledger)
      }
    }
    return failed
  }
}
