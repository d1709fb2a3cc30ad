import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --firmware latest --rollout` as an operator runs it (`--once` passes of a real process on a
/// simulated site of three outdated KBeacon Pros, the repository's example catalogue): the firmware goes out
/// in stages across passes, and a stage over `--max-failures` stops the rollout — kept in the schedule, so a
/// later start connects to nobody for it — until `--resume-rollout`. Installs are counted from the
/// simulator's own write log.
@Suite(.serialized, .timeLimit(.minutes(4))) struct ReconcileRolloutProcessTests {
  static func site(_ device: String) throws -> (ReconcileProcess, [String]) {
    let site = try ReconcileProcess(devices: [device, device, device])
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: site.folder + "/catalogue")
    let arguments = [
      "--once", "--firmware", "latest", "--catalog", site.folder + "/catalogue", "--firmware-dir",
      site.folder + "/firmware", "--rollout", "canary=1,waves=100%", "--backoff-base", "0.5",
    ]
    return (site, arguments)
  }

  static let outdated = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}"#

  @Test func theCanaryGoesFirstAndTheRestInTheNextPass() async throws {
    let (site, arguments) = try Self.site(Self.outdated)
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    try site.start(arguments)
    #expect(await site.exitStatus() == 0, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    let canary = site.events("firmware-updated").compactMap(\.address)
    #expect(canary.count == 1, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(try log.counts(what: "firmware").count == 1)
    #expect(site.events("rollout-stage").map(\.reason) == ["canary"])
    #expect(Set(site.events("skipped-rollout").compactMap(\.address)).count == 2)

    site.clearEvents()
    try site.start(arguments)
    #expect(await site.exitStatus() == 0, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    let wave = site.events("firmware-updated").compactMap(\.address)
    #expect(wave.count == 2 && !wave.contains(canary.first ?? ""), "\(wave)")
    #expect(site.events("rollout-stage").map(\.reason) == ["wave 1"])
    let all = (0..<3).map(ReconcileProcess.address)
    #expect(try log.counts(what: "firmware") == Dictionary(uniqueKeysWithValues: all.map { ($0, 1) }))
  }

  @Test func aCanaryThatFailsStopsTheRolloutAcrossRestartsUntilResumed() async throws {
    // Every device's bootloader drops the link past 1,000 bytes: no update can succeed.
    let failing =
      Self.outdated + #", "dfu": {"inactivityTimeoutMs": 500, "faults": {"dropLinkAtByte": 1000, "always": true}}"#
    let (site, arguments) = try Self.site(failing)
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    try site.start(arguments)
    #expect(await site.exitStatus() == 1, "a device failed")
    let canary = site.events("firmware-failed").compactMap(\.address)
    #expect(canary.count == 1)
    let stopped = site.events("rollout-stopped")
    #expect(stopped.count == 1 && stopped.first?.reason?.contains("after the canary: 1 of 1 devices failed") == true)

    // A later start: the stop holds (reconcile.json), nobody is connected to for the firmware.
    site.clearEvents()
    try site.start(arguments)
    _ = await site.exitStatus()
    #expect(site.events("firmware-failed").isEmpty, "\(site.tail)")
    #expect(site.events("skipped-rollout").allSatisfy { $0.reason?.hasPrefix("rollout stopped") == true })
    #expect(!site.events("skipped-rollout").isEmpty)

    // The operator goes on: the next stage (the rest of the site) is tried — each of its devices fails, or finds
    // the canary's bootloader at its address (the canary, a member whose 0.5 s backoff ran out, is tried again
    // beside them, and its failed update leaves its bootloader at its address + 1 for a while).
    site.clearEvents()
    try site.start(arguments + ["--resume-rollout"])
    _ = await site.exitStatus()
    let rest = Set((0..<3).map(ReconcileProcess.address)).subtracting(canary)
    let tried = Set((site.events("firmware-failed") + site.events("firmware-shadowed")).compactMap(\.address))
    #expect(
      rest.count == 2 && rest.isSubset(of: tried), "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(try log.counts(what: "firmware").isEmpty, "no image was activated")
  }

  /// A canary whose new application starts late (silent 23 s after its update, against reconcile's 10 s connect
  /// timeout and its two attempts 1 s apart, which alone give up after about 21 s): its read-back times out, the
  /// service says it looks again, and the third look reads the new version — the canary counts as updated and the
  /// rollout goes on at the default `--max-failures 0%` (it stopped site-wide on a read-back that failed in the
  /// VM tier).
  @Test func aCanaryThatStartsLateAfterItsUpdateIsNotAFailure() async throws {
    let slow = Self.outdated + #", "dfu": {"faults": {"silentAfterUpdateMs": 23000}}"#
    let (site, arguments) = try Self.site(slow)
    try site.start(arguments)
    #expect(await site.exitStatus() == 0, "\(site.tail)")
    #expect(site.events("firmware-updated").count == 1, "\(site.tail)")
    #expect(site.events("firmware-failed").isEmpty && site.events("rollout-stopped").isEmpty, "\(site.tail)")
    #expect(site.events("rollout-stage").map(\.reason) == ["canary"])
    #expect(
      site.errorLines.contains {
        $0.contains("firmware: updated; its version could not be read back (connect timeout")
      },
      "\(site.tail)")
  }
}
