import BeaconCore
import Profiles
import Synchronization

extension FirmwareWork {
  /// A device whose transfer an earlier attempt of this run started, and which now reports the version the
  /// journal says was being installed, though it did not run it before: it is updated, from the version the
  /// journal kept — not "already current", which a new route decision would say, nor sent the package again.
  /// The journal's step says how far that attempt got: `verifying` (the transfer finished, the link dropped
  /// while `ver` was read back, or the process stopped there) or `transferring` (the image was activated but
  /// the transfer still failed: the link lost right after the last Execute — seen under load in a 20-device
  /// campaign, reported "skipped: already at or above"). Nil for every other device. The report keeps the
  /// transfer's figures when this process made it; otherwise they are unknown (0 bytes).
  func installedEarlier(_ address: String, previous read: JournalDevice?, now: DeviceIdentity) async -> DeviceOutcome? {
    let previous = begun.row(read)
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
  /// bootloader and spending attempts on `BootloaderAtAddress`. Only this batch's targets, whose own visit
  /// takes the hold back: on a shared run, a device left so that is not in this round (a dead gateway's,
  /// taken over only in a later round, or another gateway's at work) would keep the device above waiting
  /// out the whole quarantine with the round, and so the takeover, stuck behind it; there the device above
  /// meets the bootloader instead and is left for a later round (`Campaign.Options.deferShadowed`). The
  /// quarantine ends on its own otherwise. A journal that cannot be read quarantines nothing.
  public func prepare(_ targets: [Target], context: CampaignContext) async {
    guard let quarantine = bootloaderQuarantine,
      let rows = try? await context.journal.devices(run: context.run)
    else { return }
    let batch = Set(targets.map(\.address.description))
    let left = rows.filter { $0.isLeftMidTransfer && batch.contains($0.address) }
    for address in left.compactMap({ BluetoothAddress($0.address) }) {
      await neighbourhood.quarantine(address, for: quarantine)
    }
  }
}

/// The journal rows that showed a device's transfer begun (step `transferring` or `verifying`), kept for the
/// campaign's later attempts and rounds. A later attempt records `connecting` first, over a `transferring` step
/// whose application answered (a `verifying` one stays: `FirmwareWork.visit`); if that attempt then failed before
/// it read the device (a link lost), the attempt after it read a row that no longer said a transfer had
/// begun, and a device this run had updated was reported "skipped: up to date". `installedEarlier` reads the
/// remembered row; nothing else does (whether the device may be in its bootloader now is the journal's row's to
/// say: a later attempt that found the application on its old version recorded that).
final class BegunTransfers: Sendable {
  private let rows = Mutex<[String: JournalDevice]>([:])
  private static let started: Set<String> = [VisitStep.transferring.rawValue, VisitStep.verifying.rawValue]

  /// Remembers `row` when it shows a transfer begun.
  func note(_ row: JournalDevice?) {
    guard let row, let step = row.step, Self.started.contains(step) else { return }
    rows.withLock { $0[row.address] = row }
  }

  /// `row` when it shows a transfer begun, else the last one of its device that did, else `row`.
  func row(_ row: JournalDevice?) -> JournalDevice? {
    guard let row else { return nil }
    if let step = row.step, Self.started.contains(step) { return row }
    return rows.withLock { $0[row.address] } ?? row
  }
}

extension FirmwareWork {
  /// The identity read back after a transfer that succeeded. A neighbour's DFU bootloader answering at this
  /// address instead (`BootloaderAtAddress`: on a shared site, another gateway updating the device below since
  /// this visit began — this process keeps its own neighbours apart) is waited out off the link, looking again
  /// every 2 s for up to `defaultBootloaderQuarantine` (130 s), rather than failing a device whose image is in place
  /// (a failed visit's next one, after more failures or in a new process, could no longer tell it had updated
  /// the device, and reported it "skipped: up to date"). Not in a round of a shared run while the device may
  /// still be deferred (`CampaignContext.defersShadow(of:)`): there the shadow may be a dead gateway's device
  /// left in its bootloader, which this gateway takes over only in a later round, so the wait would hold the
  /// round — and the shadow — for the whole 130 s; the device is left for a later round instead, whose visit
  /// finds the image in place (`installedEarlier`; the journal row goes on saying `verifying`). Whether it may
  /// still be deferred is asked when the shadow is met (a read-back takes seconds), so that the campaign's own
  /// check (`Campaign.shadowed`) comes to the same answer.
  ///
  /// A read-back that fails for a passing reason (`FailureKind.transient`: a connect that timed out, a link
  /// lost) is tried again up to `readBackRetries` times, 2 s apart off the link. After the final Execute the
  /// device is restarting: a dual-bank bootloader copies the new image over the old one before it runs it
  /// (seconds for a large image), and the controller may still be tearing down the bootloader's link (a
  /// read-back connect that never began over the VM tier's kernel stack, `reconcile-gateways`). Failing there
  /// would count an updated device as a failed one: a staged rollout at `--max-failures 0%` stopped site-wide
  /// on it. Only the read-back is repeated — it writes nothing — and the device keeps its neighbours out
  /// meanwhile, as during the transfer.
  ///
  /// Nil when the campaign stopped during a wait (Ctrl-C): the device's journal row goes on saying `verifying` with
  /// its `ver` change, so `--resume` reads it back and reports it updated (`installedEarlier`) rather than a
  /// failure on record for a device whose image is in place.
  func identifyAfterTransfer(_ target: Target, context: CampaignContext) async throws -> DeviceIdentity? {
    let address = target.address.description
    let bound = Self.defaultBootloaderQuarantine
    var waited = Duration.zero
    var retries = 0
    while true {
      let reason: String
      do {
        return try await updater.identify(target)
      } catch is BootloaderAtAddress where waited < bound && !context.defersShadow(of: address) {
        waited += Self.readBackPause
        reason = "updated; a neighbour's DFU bootloader answers at its address, looking again to read its version"
      } catch  where Self.mayLookAgain(after: error) && retries < Self.readBackRetries {
        retries += 1
        reason =
          "updated; its version could not be read back (\(error)), trying again (\(retries) of \(Self.readBackRetries))"
      }
      let pause = Self.readBackPause
      let goOn = await context.waitOffLink(address, reason: reason) { _ in
        try? await Task.sleep(for: pause)
        return true
      }
      guard goOn else { return nil }
    }
  }

  /// [I] How many more times a read-back that failed for a passing reason is tried (`identifyAfterTransfer`):
  /// 2, so three connects over about `3 × --timeout + 4 s` — more than the seconds an nRF52 takes to copy and
  /// start an image, and bounded, so a device that never comes back still fails in reasonable time.
  static let readBackRetries = 2
  /// Whether a read-back that failed with `error` is worth another look: a passing failure
  /// (`FailureKind.transient`), but not the adapter refusing a link (`LinkError.Code.tooManyLinks`), which the
  /// campaign's link limit handles, learning from it, without counting an attempt.
  static func mayLookAgain(after error: any Error) -> Bool {
    if let link = error as? LinkError, link.code == .tooManyLinks { return false }
    return (error as? any ClassifiedFailure)?.failureKind == .transient
  }
  /// The pause before each new look at the device after a transfer.
  static let readBackPause: Duration = .seconds(2)
}
