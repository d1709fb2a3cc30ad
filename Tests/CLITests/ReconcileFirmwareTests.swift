import ArgumentParser
import CampaignPipeline
import Foundation
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --firmware latest --catalog` as an operator runs it: a real process on a simulated site whose
/// KBeacon Pros have consecutive addresses (a bootloader at address + 1 is the next device's address) and
/// run 5.12, 5.22 and 5.13, against a copy of the repository's example catalogue (newest 5.14). Firmware
/// installs are counted from the simulator's own write log (every image a device activated), never from the
/// tool's report.
@Suite(.serialized, .timeLimit(.minutes(4))) struct ReconcileFirmwareTests {
  static func site() throws -> (ReconcileProcess, catalogue: String, cache: String) {
    let system = { (version: String) in #""system": {"model": 12, "batteryPercent": 90, "firmware": "\#(version)"}"# }
    let site = try ReconcileProcess(devices: [system("5.12"), system("5.22"), system("5.13")])
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    return (site, catalogue, site.folder + "/firmware")
  }

  /// `reconcile` on `site()` with the catalogue at one link, stopped by itself (`SimulatorPauseHook`) just before
  /// the transfer to device 2: the visits go in `AddressNeighbourhood.spread`'s order, even addresses first (0,
  /// then 2), so device 0 is updated by then. Returns the site and the firmware options.
  static func stoppedBeforeTheLastTransfer() async throws -> (ReconcileProcess, firmware: [String]) {
    let (site, catalogue, cache) = try Self.site()
    let older = ReconcileProcess.address(2)
    let firmware = ["--firmware", "latest", "--catalog", catalogue, "--firmware-dir", cache, "--parallel", "1"]
    try site.start(firmware, environment: [SimulatorPauseHook.environmentVariable: "before-transfer:\(older)"])
    let stopped = try await site.wait(seconds: 120) {
      site.errorLines.contains { $0.hasPrefix("test hook: stopped before transferring \(older)") }
    }
    try #require(stopped, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    return (site, firmware)
  }

  /// The outdated devices are configured, then updated to 5.14 once each and read back; the current one is
  /// checked and left as it is; a second start finds nothing due (no write, no install).
  @Test func outdatedDevicesAreUpdatedOnceAfterTheyConvergeAndNothingIsDueAfter() async throws {
    let (site, catalogue, cache) = try Self.site()
    let (old, current, older) = (ReconcileProcess.address(0), ReconcileProcess.address(1), ReconcileProcess.address(2))
    let arguments = ["--once", "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", cache]
    try site.start(arguments)
    #expect(await site.exitStatus() == 0, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    for address in [old, current, older] { #expect(site.events("converged", address).count == 1) }
    let updated = Dictionary(uniqueKeysWithValues: site.events("firmware-updated").map { ($0.address ?? "", $0) })
    #expect(Set(updated.keys) == [old, older], "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(updated[old]?.from == "5.12" && updated[old]?.to == "5.14")
    #expect(updated[older]?.from == "5.13" && updated[older]?.to == "5.14")
    #expect(site.events("firmware-current", current).first?.reason?.hasPrefix("up to date (runs 5.22") == true)
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware") == [old: 1, older: 1])

    // Checked within --recheck (a day): a second start connects to nobody.
    site.clearEvents()
    try site.start(arguments)
    #expect(await site.exitStatus() == 0)
    #expect(site.events("converged").isEmpty && site.events("firmware-updated").isEmpty)
    #expect(site.events("firmware-current").isEmpty)
    #expect(try log.counts(what: "firmware") == [old: 1, older: 1])
    #expect(try log.counts() == [old: 1, current: 1, older: 1])
  }

  /// `kill -9` of a running `reconcile --firmware` at the moment one device's transfer is to start (the process
  /// stops itself there, `SimulatorPauseHook` `before-transfer`, and is killed stopped), then a fresh `--once`
  /// on the same state: the outdated devices end on 5.14 with each image installed exactly once, counted from
  /// the simulator's write log — the one updated before the kill is found current, not updated again — the
  /// current device is not touched, and no device is configured twice.
  @Test func aKillNineBeforeATransferLosesNothingAndARestartInstallsEachImageOnce() async throws {
    let (site, firmware) = try await Self.stoppedBeforeTheLastTransfer()
    let (old, current, older) = (ReconcileProcess.address(0), ReconcileProcess.address(1), ReconcileProcess.address(2))
    site.signal(SIGKILL)
    #expect(await site.exitStatus() == SIGKILL)
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware") == [old: 1], "the kill came before the first update or after the second")

    site.clearEvents()
    try site.start(["--once"] + firmware)
    #expect(await site.exitStatus() == 0, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(site.events("firmware-updated").map(\.address) == [older])
    #expect(try log.counts(what: "firmware") == [old: 1, older: 1])
    #expect(try log.counts() == [old: 1, current: 1, older: 1])
  }

  /// A second stop during a firmware pass abandons it, as during a configuration pass: status 130, and no
  /// `firmware-error` (the quit is not the catalogue's failure). The process stops itself before a transfer;
  /// SIGTERM and SIGINT, both pending, arrive together once it is continued.
  @Test func aSecondStopDuringAFirmwarePassQuitsWithStatus130() async throws {
    let (site, _) = try await Self.stoppedBeforeTheLastTransfer()
    site.signal(SIGTERM)
    site.signal(SIGINT)
    site.signal(SIGCONT)
    #expect(await site.exitStatus() == 130, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(site.events("firmware-error").isEmpty)
  }

  /// Outside `--maintenance-window` (a span two hours from now on this machine's clock) the devices are
  /// configured but no firmware is installed, and each is reported once; a start without the window then
  /// updates them: they were left due, not forgotten.
  @Test func outsideTheMaintenanceWindowNoFirmwareIsInstalledAndTheDevicesStayDue() async throws {
    let (site, catalogue, cache) = try Self.site()
    let minutes = Calendar.current.dateComponents([.hour, .minute], from: Date())
    let start = ((minutes.hour ?? 0) * 60 + (minutes.minute ?? 0) + 120) % 1440
    let clock = { (m: Int) in String(format: "%02d:%02d", m / 60, m % 60) }
    let window = "\(clock(start))-\(clock((start + 60) % 1440))"
    let arguments = ["--once", "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", cache]
    try site.start(arguments + ["--maintenance-window", window])
    #expect(await site.exitStatus() == 0)
    #expect(site.events("converged").count == 3)
    #expect(Set(site.events("skipped-maintenance").compactMap(\.address)).count == 3)
    #expect(site.events("firmware-updated").isEmpty && site.events("firmware-current").isEmpty)
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware").isEmpty)

    site.clearEvents()
    try site.start(arguments)
    #expect(await site.exitStatus() == 0)
    #expect(site.events("converged").isEmpty, "the configuration was not due again")
    #expect(Set(site.events("firmware-updated").compactMap(\.address)).count == 2)
    #expect(try log.counts(what: "firmware").count == 2)
  }

  /// A device whose update always fails (its bootloader drops the link at every data write past 1,000 bytes)
  /// is reported and backs off, each wait twice the one before, never hammered; its neighbour is updated once,
  /// and the failing one keeps its old firmware (its bootloader gives up and runs the old application).
  @Test func aDeviceWhoseUpdateFailsBacksOffAndItsNeighbourIsUpdatedOnce() async throws {
    let failing =
      #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}, "#
      + #""dfu": {"inactivityTimeoutMs": 500, "faults": {"dropLinkAtByte": 1000, "always": true}}"#
    // The failing device above its neighbour, so its bootloader (at its address + 1) hides nobody here; the
    // other placement is `aNeighbourHiddenByAFailedDevicesBootloaderGetsItsTurn`.
    let site = try ReconcileProcess(devices: [
      #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}"#, failing,
    ])
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let (good, bad) = (ReconcileProcess.address(0), ReconcileProcess.address(1))
    try site.start([
      "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware", "--backoff-base",
      "0.5",
    ])
    // Each failed update takes a few seconds (the link lost four times in a row); two show the doubling.
    let done = try await site.wait(seconds: 180) {
      site.events("backoff", bad).count >= 2 && !site.events("firmware-updated", good).isEmpty
    }
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0)
    #expect(done, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(site.events("firmware-failed", bad).count >= 2)
    #expect(Array(site.events("backoff", bad).prefix(2).compactMap(\.seconds)) == [0.5, 1])
    #expect(site.events("firmware-updated", bad).isEmpty && site.events("firmware-updated", good).count == 1)
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware") == [good: 1])
    // Configured once each: a firmware failure does not bring the configuration back.
    #expect(try log.counts() == [bad: 1, good: 1])
  }

  /// The failing device below its neighbour, as `AddressNeighbourhood.spread` visits them (even addresses
  /// first; `--parallel 1` makes that order the order of the visits — with two links the neighbour could
  /// start first and be updated before the other failed, as a clean-clone run under load showed): its failed update leaves its bootloader answering at the neighbour's address for its inactivity
  /// timeout (8 s here, and every link to it starts that again). The neighbour's check reaches that bootloader
  /// and waits (`firmware-shadowed`, `--bootloader-timeout`) while the failing device waits for the
  /// neighbour's turn; the neighbour is then updated once. Before, both backed off in step and the failing
  /// device's next jump hid the neighbour again, pass after pass.
  @Test func aNeighbourHiddenByAFailedDevicesBootloaderGetsItsTurn() async throws {
    let failing =
      #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}, "#
      + #""dfu": {"inactivityTimeoutMs": 8000, "faults": {"dropLinkAtByte": 1000, "always": true}}"#
    let site = try ReconcileProcess(devices: [
      failing, #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}"#,
    ])
    let catalogue = site.folder + "/catalogue"
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: catalogue)
    let (bad, good) = (ReconcileProcess.address(0), ReconcileProcess.address(1))
    try site.start([
      "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", site.folder + "/firmware", "--backoff-base",
      "0.5", "--bootloader-timeout", "12", "--parallel", "1",
    ])
    let done = try await site.wait(seconds: 200) { !site.events("firmware-updated", good).isEmpty }
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0)
    #expect(done, "\(site.errorLines.suffix(40).joined(separator: "\n"))")
    #expect(!site.events("firmware-shadowed", good).isEmpty, "the neighbour was never hidden: the test proves nothing")
    #expect(site.events("firmware-shadowed", good).allSatisfy { $0.seconds == 12 })
    #expect(!site.events("firmware-failed", bad).isEmpty)
    #expect(site.events("firmware-failed", good).isEmpty, "waiting out a bootloader counted as a failure")
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware") == [good: 1])
  }

  /// A catalogue that cannot be had (its folder is not there): `firmware-error`, and firmware waits, backing
  /// off, rather than asking again every 1 s window; the configuration goes on meanwhile.
  @Test func aCatalogueThatCannotBeHadHoldsFirmwareBackBackingOff() async throws {
    let (site, _, cache) = try Self.site()
    try site.start([
      "--firmware", "latest", "--catalog", site.folder + "/nowhere", "--firmware-dir", cache, "--backoff-base", "2",
    ])
    let seen = try await site.wait(seconds: 90) { site.events("firmware-error").count >= 2 }
    site.signal(SIGTERM)
    #expect(await site.exitStatus() == 0)
    #expect(seen, "\(site.tail)")
    let errors = site.events("firmware-error")
    #expect(Array(errors.prefix(2).compactMap(\.seconds)) == [2, 4])
    #expect(errors.first?.reason?.contains("nowhere") == true, "\(errors.first?.reason ?? "")")
    let times = errors.compactMap { ISO8601DateFormatter.reconcileStamp.date(from: $0.at) }
    #expect(times.count >= 2 && times[1].timeIntervalSince(times[0]) >= 2, "asked again before its backoff: \(times)")
    #expect(site.events("converged").count == 3)
    #expect(site.events("firmware-updated").isEmpty)
  }

  /// Refused before any radio work, as usage errors (64) naming the option: a firmware that is neither
  /// latest nor a version, a window without --firmware or that is not a span, a --rollout without --firmware
  /// or malformed. (--firmware and --rollout with a shared journal are accepted:
  /// `ReconcileFirmwareSeveralGatewaysTests`, `ReconcileRolloutSeveralGatewaysTests`.)
  @Test func badFirmwareArgumentsAreRefusedNamingTheOption() throws {
    let cases: [([String], String)] = [
      (["--firmware", "newest"], "--firmware newest is not latest or a version like V5.14"),
      (["--maintenance-window", "01:00-05:00"], "--maintenance-window is for --firmware"),
      (["--firmware", "latest", "--maintenance-window", "25:00-05:00"], "--maintenance-window: '25:00-05:00'"),
      (["--rollout", "canary=1,waves=100%"], "--rollout is for --firmware"),
      (["--firmware", "latest", "--rollout", "canary=0,waves=100%"], "--rollout canary=0,waves=100%: canary must be"),
      (["--firmware", "latest", "--max-failures", "5%"], "--max-failures and --resume-rollout are for --rollout"),
    ]
    #expect(
      throws: Never.self,
      performing: {
        _ = try BeaconProvision.parseAsRoot(
          ["reconcile", "p.json", "--firmware", "latest", "--catalog", "c/", "--journal", "postgresql://bp@db/site"])
        _ = try BeaconProvision.parseAsRoot(
          [
            "reconcile", "p.json", "--firmware", "latest", "--catalog", "c/", "--rollout", "canary=1,waves=100%",
            "--journal", "postgresql://bp@db/site",
          ])
      })
    for (extra, message) in cases {
      let arguments = ["reconcile", "p.json"] + extra
      let error = #expect(throws: (any Error).self, "\(arguments)") { try BeaconProvision.parseAsRoot(arguments) }
      let thrown = try #require(error)
      #expect(BeaconProvision.exitCode(for: thrown) == ExitCode(64), "\(arguments)")
      #expect(BeaconProvision.message(for: thrown).contains(message), "\(BeaconProvision.message(for: thrown))")
    }
  }
}
