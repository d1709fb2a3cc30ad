import BeaconCore
import Foundation
import Simulator
import TestServers
import Testing

/// Ctrl-C during `scan` ends the scan instead of killing the process: the devices heard so far are printed
/// and the exit status is 0 (a live scan is switched off on the same path).
@Suite(.timeLimit(.minutes(5))) struct ScanInterruptTests {
  @Test func sigintPrintsWhatWasHeardAndExitsZero() async throws {
    // Its own state directory: a saved simulator state elsewhere must not change what the fleet advertises.
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("scan-interrupt-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    // -vv: each device's first report is logged on standard error, the sign that the scan is under way.
    let scan = try ChildProcess.start(
      ApplyCrashTests.binary, ["scan", "--adapter", "sim", "--duration", "120", "--json", "-vv"],
      environment: ["XDG_STATE_HOME": state])
    let (process, exit) = (scan.process, scan.exit)
    let log = try #require(scan.errors)
    // Collects standard output as it arrives.
    let lines = try #require(scan.output)
    let collected = Task {
      var all: [String] = []
      for await line in lines { all.append(line) }
      return all
    }
    // Interrupt once the paced simulator has been heard advertising every demo device at least once.
    var unheard = Set(DemoFleet.fleet.devices.map { "device=\($0.address)" })
    for await line in log where line.contains("heard") {
      unheard = unheard.filter { !line.contains($0) }
      if unheard.isEmpty { break }
    }
    try #require(unheard.isEmpty, "the scan ended before every demo device was heard: \(unheard)")
    try #require(process.isRunning, "the scan ended before it was interrupted")
    kill(process.processIdentifier, SIGINT)
    await exit.wait()
    let data = Data(await collected.value.joined(separator: "\n").utf8)
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: data)
    #expect(Set(records.map(\.address)) == Set(DemoFleet.fleet.devices.map(\.address)))
    // The scan stopped at the interrupt, two minutes early.
    #expect(try #require(records.map(\.lastSeen).max()) < 60)
  }
}
