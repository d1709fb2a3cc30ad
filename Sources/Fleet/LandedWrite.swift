import Profiles

/// A `cfg` of this run that reached the device although its attempt failed: the link dropped after the
/// device applied the message and before its acknowledgement arrived (or before the verification read),
/// or the process was killed there and the run resumed. The next attempt then reads the device back as
/// compliant — because of this run's own write. Reporting it `compliant, nothing written` would be false
/// (the run changed the device) and the journal would count no write, so the visit reports `updated` with
/// the changes journalled before the write, and counts the write when its acknowledgement never came.
/// The journal's `changes` column is set only when a write is about to be sent (`ProfileWork.visit`), so a
/// row of this run with changes and a device that now reads compliant means that write landed [I] — a
/// device changed to exactly the profile's values by someone else in between is not told apart.
struct LandedWrite: Sendable {
  /// The changes as first planned: keys and new values as the profile wants them now, old values as
  /// journalled (the text of `SettingValue.description`).
  var changes: [ConfigChange]
  /// Whether the device acknowledged the write (the journal counted it).
  var acknowledged: Bool

  /// The write this run already made to `address`, when its journal row holds one; nil otherwise.
  static func find(journal: any CampaignJournal, run: String, address: String, desired: DeviceConfigView) async throws
    -> LandedWrite?
  {
    guard let row = try await journal.device(run: run, address: address), !row.changeList.isEmpty else { return nil }
    let journalled = Dictionary(row.changeList.map { ("\($0.scope)/\($0.key)", $0) }, uniquingKeysWith: { a, _ in a })
    // Every key the profile wants, as a change from nothing; keep those the earlier write carried.
    let wanted = ConfigDiff.changes(desired: desired, actual: DeviceConfigView(common: [:], isLegacy: desired.isLegacy))
    let changes = wanted.compactMap { change -> ConfigChange? in
      guard let entry = journalled["\(change.scope)/\(change.key)"] else { return nil }
      return ConfigChange(scope: change.scope, key: change.key, old: entry.old.map(Self.value), new: change.new)
    }
    return changes.isEmpty ? nil : LandedWrite(changes: changes, acknowledged: row.writes > 0)
  }

  /// A journalled value back from its text: quoted text, an integer or a number.
  static func value(_ text: String) -> SettingValue {
    if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { return .text(String(text.dropFirst().dropLast())) }
    if let i = Int(text) { return .integer(i) }
    if let d = Double(text) { return .number(d) }
    return .text(text)
  }
}
