import BeaconCore
import CampaignPipeline
import Fleet
import FleetIO

/// A device whose firmware check failed on this gateway and that is heard since only as its DFU bootloader —
/// under the name this tool gave it (`BootloaderName`) — for longer than `--bootloader-timeout`. Nordic's
/// bootloaders give up after their inactivity timeout and run the old application again, which `reconcile`
/// then hears and retries after its backoff; one that outstays it has no application to go back to (a
/// single-bank update erased it) or is kept there. `reconcile` finishes it once its backoff has run
/// (`ReconcileLoop+FinishInBootloader`: the run that left it resumed, or on a shared journal its row reopened
/// for the takeovers); one still there after the timeout (those tries failed too, or the backoff is longer) is
/// reported, once: `firmware-in-bootloader`, with the command that finishes the run that left it (`dfu update
/// … --resume RUN`).
extension ReconcileLoop {
  /// The window's `bootloaders` (by device address: `CampaignPipeline.bootloadersHeard(in:)`) whose device no
  /// profile selected among the window's applications (`candidates`, every profile's): the devices heard only
  /// as their bootloader. Judged once per window over all profiles, so a device of one profile is never taken
  /// for silent while another profile's part of the pass runs.
  static func heardOnlyAsBootloaders(
    _ bootloaders: [String: DeviceRecord], candidates: [[ReconcileDue.Candidate]]
  ) -> [String: DeviceRecord] {
    let heard = Set(candidates.joined().map(\.address))
    return bootloaders.filter { !heard.contains($0.key) }
  }

  /// [I] Weighs the devices heard only as their bootloader this window (`heardOnlyAsBootloaders`): the first
  /// window each is heard so starts its clock (`PassState.bootloaderSince`), one that no longer is clears it,
  /// and a device whose firmware failed here (`firmwareFailures` in the ledger) and whose clock has run
  /// `timeout` is reported once in that stay (`PassState.bootloaderReported`; a failed try to finish it does
  /// not say it again) under the profile its schedule was last verified under (the ledger's fingerprint), when
  /// one of `profiles` still has it.
  func reportStuckBootloaders(
    _ silent: [String: DeviceRecord], profiles: [ReconcileProfile], firmware: ReconcileFirmware,
    journal: any CampaignJournal, state: inout PassState
  ) async {
    let at = now()
    for device in state.bootloaderSince.keys where silent[device] == nil {
      state.bootloaderSince[device] = nil
      state.bootloaderReported.remove(device)
    }
    for (device, record) in silent.sorted(by: { $0.key < $1.key }) {
      let since = state.bootloaderSince[device] ?? at
      state.bootloaderSince[device] = since
      guard let entry = state.ledger.devices[device], (entry.firmwareFailures ?? 0) > 0,
        at - since >= firmware.bootloaderTimeout, state.bootloaderReported.insert(device).inserted
      else { continue }
      let profile = profiles.first { $0.fingerprint == entry.fingerprint }
      let run = await CampaignPipeline.runLeaving(device, journal: journal)
      let finish = run.map { "; finish it with  " + ResumeRun.command(firmware.finishArguments, run: $0.id) } ?? ""
      await output.emit(
        .init(
          event: "firmware-in-bootloader", address: device, profile: profile?.path, reason: run?.id,
          seconds: at - since),
        "\(device): firmware failed, and its DFU bootloader (\(record.name ?? "") at \(record.address)) has "
          + "advertised for \(ReconcileLoop.seconds(at - since)) without the application coming back"
          + finish)
    }
  }
}
