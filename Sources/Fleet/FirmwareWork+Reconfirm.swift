import BeaconCore
import Profiles

extension FirmwareWork {
  /// A device whose transfer an earlier attempt of this run started, and which now reports the version the
  /// journal says was being installed, though it did not run it before: it is updated, from the version the
  /// journal kept — not "already current", which a new route decision would say, nor sent the package again.
  /// The journal's step says how far that attempt got: `verifying` (the transfer finished, the link dropped
  /// while `ver` was read back, or the process stopped there) or `transferring` (the image was activated but
  /// the transfer still failed: the link lost right after the last Execute — seen under load in a 20-device
  /// campaign, reported "skipped: already at or above"). Nil for every other device. The report keeps the
  /// transfer's figures when this process made it; otherwise they are unknown (0 bytes).
  func installedEarlier(_ address: String, previous: JournalDevice?, now: DeviceIdentity) async -> DeviceOutcome? {
    let started = [VisitStep.transferring.rawValue, VisitStep.verifying.rawValue]
    guard let step = previous?.step, started.contains(step),
      let change = previous?.changeList.first(where: { $0.key == "ver" }),
      let installed = FirmwareVersion(change.new), now.firmware == installed
    else { return nil }
    let from = change.old.flatMap(FirmwareVersion.init)
    // Already on it before this run's transfer began: not an update of ours.
    if let from, from >= installed { return nil }
    let report =
      await reports.unconfirmed(address) ?? FirmwareUpdateReport(from: from, to: installed, bytes: 0, seconds: 0)
    await reports.add(address, report)
    return .updated([
      ConfigChange(
        scope: .common, key: "ver", old: from.map { .text($0.description) }, new: .text(installed.description))
    ])
  }
}

extension FirmwareWork {
  /// A resumed run: each device the journal left mid-transfer (step `transferring`, not finished) may be waiting
  /// in its bootloader at the address of the device above, before this process has visited it. It is
  /// quarantined as a visit that failed past the jump would be (`bootloaderQuarantine`), so the device above
  /// — started first when the order puts even addresses first — waits for it rather than meeting its
  /// bootloader and spending attempts on `BootloaderAtAddress`. Every such device of the run, not only this
  /// batch's targets: on a shared run a batch holds a few claimed devices, and the one in its bootloader may
  /// come in a later batch, or be another gateway's. Its own visit takes the hold back; the quarantine ends
  /// on its own otherwise. A journal that cannot be read quarantines nothing: the visits find out as before.
  public func prepare(_ targets: [Target], context: CampaignContext) async {
    guard let quarantine = bootloaderQuarantine,
      let rows = try? await context.journal.devices(run: context.run)
    else { return }
    let left = rows.filter(\.isLeftMidTransfer)
    for address in left.compactMap({ BluetoothAddress($0.address) }) {
      await neighbourhood.quarantine(address, for: quarantine)
    }
  }
}
