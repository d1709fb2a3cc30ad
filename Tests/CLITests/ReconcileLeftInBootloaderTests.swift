import CampaignPipeline
import Foundation
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// A device whose update fails under `reconcile --firmware` and whose bootloader does not give up (its
/// inactivity timeout is ten minutes, as a bootloader with no application to go back to never does): its
/// application stays silent, and only its bootloader advertises, under the name this tool gave it. Its
/// bootloader drops the link at byte 1,000 and on the next 12 data writes: enough for reconcile's first visit
/// to give up (4 losses in a row without progress, on each of its attempts), few enough that a resume finishes
/// it. Firmware installs are counted from the simulator's own write log, never from the tool's report.
@Suite(.serialized, .timeLimit(.minutes(4))) struct ReconcileLeftInBootloaderTests {
  static let dfu = #"{"inactivityTimeoutMs": 600000, "faults": {"dropLinkAtByte": 1000, "dropsAfterward": 12}}"#
  static let stuck = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}, "dfu": "# + dfu

  /// The site with the stuck device, `reconcile` started on it with the catalogue, `--backoff-base` and
  /// `--bootloader-timeout`; and the catalogue's folder.
  static func started(backoff: String, timeout: String, extra: [String] = []) throws
    -> (ReconcileProcess, catalogue: String)
  {
    let site = try ReconcileProcess(devices: [stuck])
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    try site.start(
      [
        "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware", "--backoff-base",
        backoff, "--bootloader-timeout", timeout,
      ] + extra)
    return (site, catalogue)
  }

  /// With a backoff longer than the test: once the bootloader has advertised for `--bootloader-timeout` the
  /// device is reported, once — `firmware-in-bootloader`, naming the run that left it — and nothing more is
  /// tried. The command the report prints then finishes the device.
  @Test func aDeviceLeftInItsBootloaderByAFailedUpdateIsReportedOnce() async throws {
    let (site, catalogue) = try Self.started(backoff: "600", timeout: "3")
    let bad = ReconcileProcess.address(0)
    let reported = try await site.wait(seconds: 120) { !site.events("firmware-in-bootloader", bad).isEmpty }
    // Three windows more: the report is not repeated, and the silent device is not tried again.
    try await Task.sleep(for: .seconds(3))
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0)
    #expect(reported, "\(site.tail)")
    let events = site.events("firmware-in-bootloader", bad)
    #expect(events.count == 1, "\(events)")
    #expect((events.first?.seconds ?? 0) >= 3)
    // Under the profile its schedule was verified under (the ledger's fingerprint).
    #expect(events.first?.profile == site.profile, "\(events)")
    let failed = site.events("firmware-failed", bad)
    #expect(failed.count == 1, "\(failed)")
    let run = try #require(events.first?.reason, "the run that left it")
    let finish =
      ["dfu", "update", "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware"]
      + ["--adapter", "sim:\(site.fleet)", "--state-dir", site.state]
    let line = try #require(
      site.errorLines.first { $0.contains("\(bad): firmware failed, and its DFU bootloader (Dfu") }, "\(site.tail)")
    #expect(line.hasSuffix("finish it with  " + ResumeRun.command(finish, run: run)), "\(line)")
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware").isEmpty)

    let resumed = try await ChildProcess.run(ApplyCrashTests.binary, finish + ["--resume", run, "--scan", "2"])
    #expect(resumed.status == 0, "\(resumed.errors)")
    #expect(resumed.output.contains("\(bad)  updated 5.12 → 5.14"), "\(resumed.output)")
    #expect(try log.counts(what: "firmware") == [bad: 1])
  }

  /// With a short backoff: once it has run, `reconcile` resumes the run that left the device, for it alone,
  /// at its waiting bootloader, until the device is updated — once, by the simulator's write log — and no
  /// operator command is needed (nor given: `--bootloader-timeout` is longer than the test). Before, the device
  /// stayed in its bootloader until someone ran `dfu update --resume`.
  @Test func aDeviceLeftInItsBootloaderIsFinishedOnceItsBackoffHasRun() async throws {
    let (site, _) = try Self.started(backoff: "0.5", timeout: "600")
    let bad = ReconcileProcess.address(0)
    let updated = try await site.wait(seconds: 150) { !site.events("firmware-updated", bad).isEmpty }
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0)
    #expect(updated, "\(site.tail)")
    #expect(site.events("firmware-failed", bad).count >= 1)
    #expect(site.events("firmware-updated", bad).first?.to == "5.14")
    #expect(site.events("firmware-in-bootloader", bad).isEmpty)
    #expect(site.errorLines.contains { $0.contains("\(bad): left in its DFU bootloader by run ") }, "\(site.tail)")
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware") == [bad: 1])
  }

  /// The hourly budget spent (one configuration visit, one firmware visit): the device waits in its bootloader
  /// with `skipped-budget`, said once, and `firmware-in-bootloader` is said once too. Before, both shared one
  /// remembered reason per device, so each replaced the other and both were said again every window.
  @Test func aDeviceWaitingForTheBudgetInItsBootloaderIsReportedOnce() async throws {
    let (site, _) = try Self.started(backoff: "0.5", timeout: "2", extra: ["--max-connections-per-hour", "2"])
    let bad = ReconcileProcess.address(0)
    let reported = try await site.wait(seconds: 120) { !site.events("firmware-in-bootloader", bad).isEmpty }
    // Four windows more.
    try await Task.sleep(for: .seconds(4))
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0)
    #expect(reported, "\(site.tail)")
    #expect(site.events("firmware-in-bootloader", bad).count == 1, "\(site.tail)")
    #expect(site.events("skipped-budget", bad).count == 1, "\(site.tail)")
    #expect(site.events("firmware-failed", bad).count == 1, "\(site.tail)")
  }
}
