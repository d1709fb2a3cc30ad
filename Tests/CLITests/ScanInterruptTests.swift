import BeaconCore
import Foundation
import Simulator
import Testing

/// Ctrl-C during `scan` ends the scan instead of killing the process: the devices heard so far are printed
/// and the exit status is 0 (a live scan is switched off on the same path).
@Suite(.timeLimit(.minutes(5))) struct ScanInterruptTests {
  @Test func sigintPrintsWhatWasHeardAndExitsZero() async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ApplyCrashTests.binary)
    process.arguments = ["scan", "--adapter", "sim", "--duration", "120", "--json"]
    // Its own state directory: a saved simulator state elsewhere must not change what the fleet advertises.
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("scan-interrupt-\(getpid())").path
    process.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": state]) { $1 }
    defer { try? FileManager.default.removeItem(atPath: state) }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Let the paced simulator advertise for a while (every demo device at least once), then interrupt.
    try await Task.sleep(for: .seconds(4))
    try #require(process.isRunning, "the scan ended before it was interrupted")
    kill(process.processIdentifier, SIGINT)
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: data)
    #expect(Set(records.map(\.address)) == Set(DemoFleet.fleet.devices.map(\.address)))
    // The scan stopped at the interrupt, two minutes early.
    #expect(try #require(records.map(\.lastSeen).max()) < 60)
  }
}
