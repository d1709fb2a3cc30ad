import CampaignPipeline
import Foundation
import Testing

/// `reconcile`'s schedule: when a device is due, the exponential backoff, a wrong password
/// never retried, and air drift a connected check could not repair not bringing the device back.
@Suite(.timeLimit(.minutes(1))) struct ReconcileLedgerTests {
  let a = "DD:34:02:06:F0:01"

  @Test func aDeviceIsDueUntilVerifiedThenOnlyOnContentDriftOrRecheck() {
    var ledger = ReconcileLedger()
    #expect(ledger.decision(a, fingerprint: "p1", drift: [], now: 100, recheck: 60) == .neverVerified)
    ledger.verified(a, fingerprint: "p1", drift: [], now: 100, wrote: true)
    #expect(ledger.decision(a, fingerprint: "p1", drift: [], now: 150, recheck: 60) == .upToDate)
    #expect(ledger.decision(a, fingerprint: "p2", drift: [], now: 150, recheck: 60) == .contentChanged)
    #expect(
      ledger.decision(a, fingerprint: "p1", drift: ["device name"], now: 150, recheck: 60)
        == .airDrift(["device name"]))
    #expect(ledger.decision(a, fingerprint: "p1", drift: [], now: 160, recheck: 60) == .recheck)
  }

  @Test func driftACompliantCheckFoundNothingToRepairForDoesNotComeBack() {
    var ledger = ReconcileLedger()
    ledger.verified(a, fingerprint: "p1", drift: ["slot 0 interval"], now: 0, wrote: false)
    #expect(ledger.decision(a, fingerprint: "p1", drift: ["slot 0 interval"], now: 1, recheck: 60) == .upToDate)
    #expect(
      ledger.decision(a, fingerprint: "p1", drift: ["slot 0 interval", "device name"], now: 1, recheck: 60)
        == .airDrift(["device name"]))
    // A write repairs what the air showed: the same drift seen again after it is drift again.
    ledger.verified(a, fingerprint: "p1", drift: ["device name"], now: 2, wrote: true)
    #expect(
      ledger.decision(a, fingerprint: "p1", drift: ["device name"], now: 3, recheck: 60) == .airDrift(["device name"]))
  }

  @Test func failuresBackOffExponentiallyUpToTheCapAndAVerificationClearsThem() {
    var ledger = ReconcileLedger()
    let delays = (0..<10).map { i in ledger.failed(a, fingerprint: "p1", wrongPassword: false, now: Double(i))! }
    #expect(Array(delays.prefix(4)) == [30, 60, 120, 240])
    #expect(delays.last == ReconcileLedger.backoffCap)
    #expect(ledger.decision(a, fingerprint: "p1", drift: [], now: 10, recheck: 60) == .backingOff(until: 9 + 3600))
    #expect(ledger.decision(a, fingerprint: "p1", drift: [], now: 9 + 3600, recheck: 60) == .neverVerified)
    ledger.verified(a, fingerprint: "p1", drift: [], now: 4000, wrote: true)
    #expect(ledger.devices[a]?.failures == 0)
  }

  /// A device the profile turned out not to select once connected to (its model or firmware) was connected to
  /// again every window, spending the hourly budget: it now waits for the recheck or a change of the profile.
  @Test func aDeviceNotSelectedOnceConnectedToWaitsForTheRecheckOrAProfileChange() {
    var ledger = ReconcileLedger()
    ledger.notSelected(a, fingerprint: "p1", now: 100)
    #expect(
      ledger.decision(a, fingerprint: "p1", drift: ["device name"], now: 150, recheck: 60) == .notSelected(until: 160))
    #expect(!ledger.decision(a, fingerprint: "p1", drift: [], now: 150, recheck: 60).isDue)
    #expect(ledger.decision(a, fingerprint: "p1", drift: [], now: 160, recheck: 60) == .neverVerified)
    #expect(ledger.decision(a, fingerprint: "p2", drift: [], now: 150, recheck: 60) == .neverVerified)
    // Selected and verified later (its firmware changed): the skip is forgotten.
    ledger.verified(a, fingerprint: "p1", drift: [], now: 170, wrote: false)
    #expect(ledger.devices[a]?.skippedUnder == nil)
    #expect(ledger.decision(a, fingerprint: "p1", drift: [], now: 180, recheck: 60) == .upToDate)
  }

  @Test func aWrongPasswordIsNeverRetriedUntilTheProfileChanges() {
    var ledger = ReconcileLedger()
    #expect(ledger.failed(a, fingerprint: "p1", wrongPassword: true, now: 0) == nil)
    #expect(ledger.decision(a, fingerprint: "p1", drift: ["device name"], now: 1e9, recheck: 60) == .wrongPassword)
    #expect(ledger.decision(a, fingerprint: "p2", drift: [], now: 1, recheck: 60) == .neverVerified)
  }

  /// `--firmware`: configuration first (never configured, failing or refused: not due), then due until checked
  /// under this source, again after --recheck or when the source changes; a failure backs off on its own count;
  /// a configuration visit keeps the firmware part.
  @Test func firmwareIsDueUntilCheckedUnderItsSourceAndAFailureBacksOffOnItsOwn() throws {
    var ledger = ReconcileLedger()
    let decision = { (ledger: ReconcileLedger, source: String, now: Double) in
      ledger.firmwareDecision(a, fingerprint: "p1", source: source, now: now, recheck: 60)
    }
    #expect(decision(ledger, "s1", 0) == .waitsForConfiguration)
    ledger.verified(a, fingerprint: "p1", drift: [], now: 0, wrote: true)
    #expect(ledger.firmwareDecision(a, fingerprint: "p2", source: "s1", now: 0, recheck: 60) == .waitsForConfiguration)
    #expect(decision(ledger, "s1", 0) == .neverChecked)
    ledger.firmwareChecked(a, source: "s1", now: 10)
    #expect(decision(ledger, "s1", 69) == .checked)
    #expect(decision(ledger, "s1", 70) == .recheck)
    #expect(decision(ledger, "s2", 11) == .sourceChanged)
    // A failed configuration visit holds firmware back until the device is verified again; its firmware
    // part is kept meanwhile.
    ledger.failed(a, fingerprint: "p1", wrongPassword: false, now: 21)
    #expect(decision(ledger, "s1", 80) == .waitsForConfiguration)
    ledger.verified(a, fingerprint: "p1", drift: [], now: 22, wrote: false)
    #expect(decision(ledger, "s1", 22) == .checked)
    #expect(ledger.firmwareFailed(a, now: 100, base: 30) == 30)
    #expect(ledger.firmwareFailed(a, now: 130, base: 30) == 60)
    #expect(decision(ledger, "s1", 189) == .backingOff(until: 190))
    // The retry of a device left in its bootloader asks the same backoff, and nothing of one that never failed.
    #expect(!ledger.firmwareRetryDue(a, now: 189) && ledger.firmwareRetryDue(a, now: 190))
    #expect(!ledger.firmwareRetryDue("C3:00:00:00:09:09", now: 1_000_000))
    #expect(ledger.devices[a]?.failures == 0, "a firmware failure is not a configuration failure")
    ledger.verified(a, fingerprint: "p1", drift: [], now: 140, wrote: false)
    #expect(ledger.devices[a]?.firmwareFailures == 2)
    ledger.firmwareChecked(a, source: "s1", now: 200)
    #expect(ledger.devices[a]?.firmwareFailures == nil && ledger.devices[a]?.firmwareRetryAt == nil)
    #expect(!ledger.firmwareRetryDue(a, now: 1_000_000), "a checked device is not retried")
    // A refused password: never again under this profile, for firmware either.
    ledger.failed(a, fingerprint: "p1", wrongPassword: true, now: 300)
    #expect(decision(ledger, "s1", 100_000) == .waitsForConfiguration)
    // A schedule written before the firmware fields reads, with none of them.
    let folder = NSTemporaryDirectory() + "ledger-old-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try #"{"devices": {"\#(a)": {"fingerprint": "p1", "verifiedAt": 5, "failures": 0}}}"#.write(
      toFile: ReconcileLedger.path(folder), atomically: true, encoding: .utf8)
    let old = try ReconcileLedger.load(stateDirectory: folder)
    #expect(old.devices[a]?.verifiedAt == 5 && old.devices[a]?.firmwareUnder == nil)
    #expect(decision(old, "s1", 6) == .neverChecked)
  }

  @Test func theLedgerSurvivesARestartAndAnUnreadableOneIsNamed() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(try ReconcileLedger.load(stateDirectory: dir) == ReconcileLedger())
    var ledger = ReconcileLedger()
    ledger.verified(a, fingerprint: "p1", drift: [], now: 5, wrote: true)
    try ledger.save(stateDirectory: dir)
    #expect(try ReconcileLedger.load(stateDirectory: dir) == ledger)
    // Written in the one output style (the JSON module's writer): `"key": value`, keys sorted.
    let text = try String(contentsOfFile: ReconcileLedger.path(dir), encoding: .utf8)
    #expect(text.contains(#""fingerprint": "p1""#) && !text.contains(#"" : "#), "\(text)")
    // A damaged file is named with the line, column and JSON path of what is wrong, as every file the tool reads.
    try #"{"devices": {"\#(a)": {"failures": "two"}}}"#.write(
      toFile: ReconcileLedger.path(dir), atomically: true, encoding: .utf8)
    let error = #expect(throws: CampaignFailure.self) { try ReconcileLedger.load(stateDirectory: dir) }
    let message = try #require(error?.message)
    #expect(message.hasPrefix(ReconcileLedger.path(dir) + ":1:"), "\(message)")
    #expect(message.contains(#"$.devices["\#(a)"].failures"#) && message.contains("remove it"), "\(message)")
  }

  /// A check that found its neighbour's bootloader (`firmwareShadowed`): the device waits the bootloader's
  /// timeout without a failure counted, and the neighbour below — whose failed update left that bootloader —
  /// waits for another timeout after it; a neighbour below that never failed is left alone. The neighbour
  /// below wraps in the last octet, as a bootloader's address + 1 does.
  @Test func aDeviceHiddenByItsNeighboursBootloaderWaitsAndTheNeighbourWaitsForItsTurn() {
    let (below, above) = ("C3:00:00:00:01:00", "C3:00:00:00:01:01")
    var ledger = ReconcileLedger()
    for address in [below, above] { ledger.verified(address, fingerprint: "p1", drift: [], now: 0, wrote: true) }
    #expect(ledger.firmwareFailed(below, now: 10, base: 1) == 1)
    #expect(ledger.firmwareShadowed(above, now: 12, timeout: 130) == 130)
    #expect(ledger.devices[above]?.firmwareFailures == nil, "waiting out a bootloader counted as a failure")
    #expect(
      ledger.firmwareDecision(above, fingerprint: "p1", source: "s", now: 141, recheck: 60)
        == .backingOff(until: 142))
    #expect(
      ledger.devices[below]?.firmwareRetryAt == Double(12 + 260), "the failed neighbour went before the hidden one")
    #expect(ledger.devices[below]?.firmwareFailures == 1)
    // A neighbour below that has not failed keeps its schedule.
    var fresh = ReconcileLedger()
    fresh.verified(below, fingerprint: "p1", drift: [], now: 0, wrote: true)
    fresh.firmwareShadowed(above, now: 12, timeout: 130)
    #expect(fresh.devices[below]?.firmwareRetryAt == nil)
    #expect(ReconcileLedger.neighbourBelow("C3:00:00:00:01:00") == "C3:00:00:00:01:FF")
    #expect(ReconcileLedger.neighbourBelow("not an address") == nil)
  }

  /// The configuration pass's rule (`shadowed`): a visit for the profile that found a neighbour's bootloader
  /// leaves the device's failure count and backoff as they were, waits the bootloader's timeout, and holds the
  /// failed neighbour below back until after this device's turn.
  @Test func aConfigurationVisitHiddenByANeighboursBootloaderIsNotAFailure() {
    let (below, above) = ("C3:00:00:00:02:00", "C3:00:00:00:02:01")
    var ledger = ReconcileLedger()
    ledger.verified(below, fingerprint: "p1", drift: [], now: 0, wrote: true)
    #expect(ledger.firmwareFailed(below, now: 10, base: 1) == 1)
    #expect(ledger.decision(above, fingerprint: "p1", drift: [], now: 12, recheck: 60) == .neverVerified)
    #expect(ledger.shadowed(above, now: 12, timeout: 130) == 130)
    #expect(ledger.devices[above]?.failures == 0, "waiting out a bootloader counted as a failure")
    #expect(ledger.decision(above, fingerprint: "p1", drift: [], now: 141, recheck: 60) == .backingOff(until: 142))
    #expect(ledger.decision(above, fingerprint: "p1", drift: [], now: 142, recheck: 60) == .neverVerified)
    #expect(ledger.devices[below]?.firmwareRetryAt == Double(12 + 260))
    // A backoff already longer than the bootloader's timeout is kept.
    #expect(ledger.failed(above, fingerprint: "p1", wrongPassword: false, now: 200, base: 1000) == 1000)
    ledger.shadowed(above, now: 201, timeout: 130)
    #expect(ledger.devices[above]?.retryAt == 1200 && ledger.devices[above]?.failures == 1)
  }
}
