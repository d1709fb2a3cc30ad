import ArgumentParser
import Foundation
import Simulator
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

  /// Refused before any radio work, as usage errors (64) naming the option: a firmware that is neither
  /// latest nor a version, a window without --firmware or that is not a span, and --firmware with a shared
  /// journal.
  @Test func badFirmwareArgumentsAreRefusedNamingTheOption() throws {
    let cases: [([String], String)] = [
      (["--firmware", "newest"], "--firmware newest is not latest or a version like V5.14"),
      (["--maintenance-window", "01:00-05:00"], "--maintenance-window is for --firmware"),
      (["--firmware", "latest", "--maintenance-window", "25:00-05:00"], "--maintenance-window: '25:00-05:00'"),
      (["--firmware", "latest", "--journal", "postgresql://bp@db/site"], "--firmware with a shared journal"),
    ]
    for (extra, message) in cases {
      let arguments = ["reconcile", "p.json"] + extra
      let error = #expect(throws: (any Error).self, "\(arguments)") { try BeaconProvision.parseAsRoot(arguments) }
      let thrown = try #require(error)
      #expect(BeaconProvision.exitCode(for: thrown) == ExitCode(64), "\(arguments)")
      #expect(BeaconProvision.message(for: thrown).contains(message), "\(BeaconProvision.message(for: thrown))")
    }
  }
}
