import BeaconCore
import Profiles

extension FirmwareWork {
  /// A device whose transfer finished in an earlier attempt of this run, but whose version check did not
  /// (the link dropped while `ver` was read back, or the process stopped there: the journal's step is
  /// `verifying`), and which now reports the version the journal says was installed: it is updated, from
  /// the version the journal kept — not "already current", which a new route decision would say, nor sent
  /// the package again. Nil for every other device. The report keeps the transfer's figures when this
  /// process made it; after a resume they are unknown (0 bytes).
  func installedEarlier(_ address: String, previous: JournalDevice?, now: DeviceIdentity) async -> DeviceOutcome? {
    guard previous?.step == VisitStep.verifying.rawValue,
      let change = previous?.changeList.first(where: { $0.key == "ver" }),
      let installed = FirmwareVersion(change.new), now.firmware == installed
    else { return nil }
    let from = change.old.flatMap(FirmwareVersion.init)
    let report =
      await reports.unconfirmed(address) ?? FirmwareUpdateReport(from: from, to: installed, bytes: 0, seconds: 0)
    await reports.add(address, report)
    return .updated([
      ConfigChange(
        scope: .common, key: "ver", old: from.map { .text($0.description) }, new: .text(installed.description))
    ])
  }
}
