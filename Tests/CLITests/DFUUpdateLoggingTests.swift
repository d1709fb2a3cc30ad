import Foundation
import Testing

/// `dfu update -v` logs its campaign as `apply -v` does (it said "Unknown option '-v'": the two campaign
/// paths had drifted apart).
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct DFUUpdateLoggingTests {
  @Test func verboseLogsEachDevicesEnd() async throws {
    let state = NSTemporaryDirectory() + "dfu-verbose-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: state) }
    let (status, _, errors) = try await CLIProcess.run([
      "dfu", "update", "--package", DFUCommandTests.fixture("app_unsigned.zip"), "--adapter", "sim", "--scan", "3",
      "--address", "DD:34:02:06:D1:02", "--state-dir", state, "-v",
    ])
    #expect(!errors.contains("Unknown option"), "\(errors)")
    #expect(errors.contains("info beacon-provision.campaign: finished") && errors.contains("device=DD:34:02:06:D1:02"), "exit \(status):\n\(errors)")
  }
}
