import CampaignPipeline
import Fleet
import Foundation
import Testing

/// `reconcile` on a shared journal: the run a profile's devices meet in, which settled devices a gateway
/// reopens, and what it learns of the devices another gateway settled.
@Suite(.timeLimit(.minutes(1))) struct ReconcileSiteRunsTests {
  let a = "DD:34:02:06:F0:01"
  let b = "DD:34:02:06:F0:02"
  let c = "DD:34:02:06:F0:03"
  let d = "DD:34:02:06:F0:04"
  let recipe = "profile sha256:" + String(repeating: "ab", count: 32)

  func row(_ address: String, _ state: DeviceState, _ kind: FailureKind? = nil, detail: String? = nil)
    -> JournalDevice
  {
    JournalDevice(
      runId: "r", address: address, state: state, step: nil, attempts: 1, writes: 0, changes: nil, detail: detail,
      failureKind: kind, updatedAt: Date(timeIntervalSince1970: 0), addressType: nil)
  }

  @Test func theRunIsNamedByContentAndRecheckPeriodSoGatewaysMeetWithoutAgreeing() {
    let day = 86400.0
    let first = ReconcileSiteRuns.runID(fingerprint: recipe, now: 10 * day + 5, recheck: day)
    #expect(first == "reconcile-abababababab-10")
    // Any gateway, any moment of the same period: the same run.
    #expect(ReconcileSiteRuns.runID(fingerprint: recipe, now: 11 * day - 1, recheck: day) == first)
    // The next period, or other content: another run.
    #expect(ReconcileSiteRuns.runID(fingerprint: recipe, now: 11 * day, recheck: day) == "reconcile-abababababab-11")
    let edited = "profile sha256:" + String(repeating: "cd", count: 32)
    #expect(ReconcileSiteRuns.runID(fingerprint: edited, now: 10 * day, recheck: day) == "reconcile-cdcdcdcdcdcd-10")
  }

  @Test func onlyDriftOnASettledDeviceOrARetryAfterBackoffReopensIt() {
    var ledger = ReconcileLedger()
    ledger.failed(c, fingerprint: recipe, wrongPassword: false, now: 0)
    ledger.failed(d, fingerprint: recipe, wrongPassword: false, now: 0)
    let rows = [
      a: row(a, .compliant), b: row(b, .verified), c: row(c, .failed, .transient),
      d: row(d, .failed, .wrongPassword),
    ]
    let due: [(address: String, decision: ReconcileLedger.Decision)] = [
      (a, .airDrift(["device name"])), (b, .neverVerified), (c, .neverVerified), (d, .neverVerified),
      ("DD:34:02:06:F0:09", .airDrift(["device name"])),
    ]
    let reasons = ReconcileSiteRuns.reopenings(due: due, rows: rows, ledger: ledger)
    // a: drift since it was checked. b: never verified here, but settled in the run: the run answers for it.
    // c: failed, and this gateway's backoff for it ran out. d: a wrong password is never reopened. The
    // device not in the run is added by joining it, no reopening needed.
    #expect(reasons == [a: .drift(["device name"]), c: .retry])
    #expect(ReconcileSiteRuns.Reopening.drift([]).states == [.compliant, .verified])
    #expect(ReconcileSiteRuns.Reopening.retry.states == [.failed])
    // A failed row this gateway never saw fail (no failures in its schedule) is learned first, not retried.
    #expect(ReconcileSiteRuns.reopenings(due: [(c, .neverVerified)], rows: rows, ledger: ReconcileLedger()) == [:])
  }

  /// A configuration visit that reached a neighbour's bootloader (`shadowed`) waits without counting a
  /// failure; once its wait ran out it is reopened like a failure whose backoff did (it was left failed, then
  /// learned as "failed on another gateway", its count raised). Another gateway's shadowed row is learned as
  /// shadowed.
  @Test func aShadowedDeviceIsReopenedAfterItsWaitAndLearnedAsShadowed() {
    var ledger = ReconcileLedger()
    _ = ledger.shadowed(a, now: 0, timeout: 130)
    let shadowed = row(a, .failed, .bootloaderAtAddress, detail: "a Secure DFU bootloader answers at this address")
    let rows = [a: shadowed, b: row(b, .failed, .bootloaderAtAddress)]
    let due: [(address: String, decision: ReconcileLedger.Decision)] = [(a, .neverVerified), (b, .neverVerified)]
    #expect(ReconcileSiteRuns.reopenings(due: due, rows: rows, ledger: ledger) == [a: .retry])
    #expect(
      ReconcileSiteRuns.settledElsewhere(due: [a], visited: [], rows: rows)
        == [a: .shadowed(detail: "a Secure DFU bootloader answers at this address")])
  }

  @Test func devicesSettledByAnotherGatewayAreLearnedAsThatGatewayLeftThem() {
    let rows = [
      a: row(a, .compliant), b: row(b, .verified), c: row(c, .failed, .transient, detail: "busy"),
      d: row(d, .failed, .wrongPassword, detail: "wrong password"), "E": row("E", .pending), "G": row("G", .skipped),
    ]
    let found = ReconcileSiteRuns.settledElsewhere(due: [a, b, c, d, "E", "F", "G"], visited: [b], rows: rows)
    #expect(
      found == [
        a: .converged(wrote: false), c: .failed(wrongPassword: false, detail: "busy"),
        d: .failed(wrongPassword: true, detail: "wrong password"), "G": .notSelected,
      ])
  }
}

/// `reconcile --firmware` on a shared journal: the run a profile's firmware checks meet in, which failed checks
/// a gateway reopens, and what it learns of the checks another gateway settled.
@Suite(.timeLimit(.minutes(1))) struct ReconcileFirmwareSiteRunsTests {
  let site = ReconcileSiteRunsTests()
  let source = "https://firmware.example/catalog/\nfirmware latest"

  @Test func theFirmwareRunIsNamedByProfileSourceAndPeriod() {
    let day = 86400.0
    let first = ReconcileSiteRuns.firmwareRunID(fingerprint: site.recipe, source: source, now: 10 * day, recheck: day)
    #expect(first.hasPrefix("reconcile-firmware-") && first.hasSuffix("-10"))
    #expect(first.count == "reconcile-firmware-".count + 12 + 3)
    #expect(
      ReconcileSiteRuns.firmwareRunID(fingerprint: site.recipe, source: source, now: 11 * day - 1, recheck: day)
        == first)
    // Another period, another source, another profile: another run; never the profile's own run.
    let others = [
      ReconcileSiteRuns.firmwareRunID(fingerprint: site.recipe, source: source, now: 11 * day, recheck: day),
      ReconcileSiteRuns.firmwareRunID(
        fingerprint: site.recipe, source: source.replacingOccurrences(of: "latest", with: "V5.14"), now: 10 * day,
        recheck: day),
      ReconcileSiteRuns.firmwareRunID(
        fingerprint: "profile sha256:" + String(repeating: "cd", count: 32), source: source, now: 10 * day,
        recheck: day),
      ReconcileSiteRuns.runID(fingerprint: site.recipe, now: 10 * day, recheck: day),
    ]
    #expect(Set(others + [first]).count == 5, "\(others)")
  }

  @Test func aFailedCheckThisGatewayKnowsIsReopenedOnceDue() {
    let (a, b, c, d) = (site.a, site.b, site.c, site.d)
    var ledger = ReconcileLedger()
    ledger.firmwareFailed(a, now: 0)
    ledger.firmwareShadowed(b, now: 0, timeout: 130)
    ledger.firmwareFailed(d, now: 0)
    let rows = [
      a: site.row(a, .failed, .transient), b: site.row(b, .failed, .bootloaderAtAddress),
      c: site.row(c, .failed, .transient), d: site.row(d, .failed, .wrongPassword),
    ]
    // a: its failure, known here. b: shadowed, known here. c: failed, but never learned here (learned first).
    // d: a refused password is never reopened.
    #expect(
      ReconcileSiteRuns.firmwareReopenings(due: [a, b, c, d], rows: rows, ledger: ledger) == [a: .retry, b: .retry])
  }

  @Test func checksSettledByAnotherGatewayAreLearnedAsThatGatewayLeftThem() {
    let (a, b, c, d) = (site.a, site.b, site.c, site.d)
    let rows = [
      a: site.row(a, .verified), b: site.row(b, .skipped, detail: "up to date (runs 5.22)"),
      c: site.row(c, .failed, .bootloaderAtAddress, detail: "a bootloader answers"),
      d: site.row(d, .failed, .wrongPassword, detail: "wrong password"), "E": site.row("E", .working),
      "F": site.row("F", .failed, .transient, detail: "busy"), "G": site.row("G", .compliant),
    ]
    let found = ReconcileSiteRuns.firmwareSettledElsewhere(
      due: [a, b, c, d, "E", "F", "G", "H"], visited: ["G"], rows: rows)
    #expect(
      found == [
        a: .checked(updated: true), b: .checked(updated: false), c: .shadowed(detail: "a bootloader answers"),
        d: .failed(wrongPassword: true, detail: "wrong password"), "F": .failed(wrongPassword: false, detail: "busy"),
      ])
  }
}
