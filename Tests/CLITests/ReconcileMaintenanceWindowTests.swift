import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --maintenance-window` closing while a firmware pass runs, on `ReconcileFirmwareTests.site()` at one
/// link: the window is the current minute and the next of this machine's clock. The process stops itself just before the
/// first transfer (`SimulatorPauseHook` `before-transfer`) and is continued only once the minute has turned, so
/// the window is closed by the time that transfer runs. The transfer under way finishes (never cut for the
/// clock); no device after it is started, each is reported `skipped-maintenance` and stays due, and a start
/// without the window updates it. Installs are counted from the simulator's write log.
@Suite(.serialized, .timeLimit(.minutes(6))) struct ReconcileMaintenanceWindowTests {
  /// The current minute as minutes after midnight, on this machine's clock.
  static func minute() -> Int {
    let parts = Calendar.current.dateComponents([.hour, .minute], from: Date())
    return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
  }

  @Test func aWindowThatClosesMidPassStartsNoMoreTransfersAndLetsTheStartedOneFinish() async throws {
    let (site, catalogue, cache) = try ReconcileFirmwareTests.site()
    let (old, older) = (ReconcileProcess.address(0), ReconcileProcess.address(2))
    // The window is this minute and the next: at least a minute for the configuration pass and the way to the
    // first transfer, even on a machine slowed by a sanitizer.
    let minute = Self.minute()
    let end = (minute + 2) % 1440
    let text = { (m: Int) in String(format: "%02d:%02d", m / 60, m % 60) }
    let window = "\(text(minute))-\(text(end))"
    let firmware = [
      "--once", "--firmware", "latest", "--catalog", catalogue, "--firmware-dir", cache, "--parallel", "1",
    ]
    try site.start(
      firmware + ["--maintenance-window", window],
      environment: [SimulatorPauseHook.environmentVariable: "before-transfer:\(old)"])
    let stopped = try await site.wait(seconds: 150) {
      site.errorLines.contains { $0.hasPrefix("test hook: stopped before transferring \(old)") }
    }
    try #require(stopped, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    try #require(
      [minute, (minute + 1) % 1440].contains(Self.minute()),
      "the pass reached its first transfer after the window closed")
    while Self.minute() != end { try await Task.sleep(for: .milliseconds(200)) }
    site.signal(SIGCONT)
    #expect(await site.exitStatus() == 0, "\(site.errorLines.suffix(30).joined(separator: "\n"))")

    #expect(site.events("firmware-updated").compactMap(\.address) == [old])
    #expect(
      site.events("skipped-maintenance", older).count == 1, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(site.events("interrupted").isEmpty && site.events("firmware-failed").isEmpty)
    let log = SimulatorStateStore(stateDirectory: site.state, fleetFile: site.fleet).writeLog
    #expect(try log.counts(what: "firmware") == [old: 1])

    // Left due, not forgotten: without the window the next start updates the device the closed window held back.
    site.clearEvents()
    try site.start(Array(firmware.dropLast(2)))
    #expect(await site.exitStatus() == 0, "\(site.errorLines.suffix(30).joined(separator: "\n"))")
    #expect(site.events("firmware-updated").compactMap(\.address) == [older])
    #expect(try log.counts(what: "firmware") == [old: 1, older: 1])
  }
}
