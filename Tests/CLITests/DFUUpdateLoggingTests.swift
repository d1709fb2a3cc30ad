import Foundation
import Testing

/// `dfu update -v` logs its campaign as `apply -v` does (it said "Unknown option '-v'": the two campaign
/// paths had drifted apart; both now run through `CampaignPipeline` and render through `CampaignConsole`).
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct DFUUpdateLoggingTests {
  static let device = "DD:34:02:06:D1:02"

  @Test func verboseLogsEachDevicesEnd() async throws {
    let state = NSTemporaryDirectory() + "dfu-verbose-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: state) }
    let (status, _, errors) = try await CLIProcess.run([
      "dfu", "update", "--package", DFUCommandTests.fixture("app_unsigned.zip"), "--adapter", "sim", "--scan", "3",
      "--address", Self.device, "--state-dir", state, "-v",
    ])
    #expect(!errors.contains("Unknown option"), "\(errors)")
    #expect(
      errors.contains("info beacon-provision.campaign: finished") && errors.contains("device=\(Self.device)"),
      "exit \(status):\n\(errors)")
  }

  /// The same device updated by `dfu update -v`, then given a name by `apply -v`: each run's end of that
  /// device is logged as the same record — level, logger, message and metadata keys — and each says where
  /// to resume the run before touching a device.
  @Test func dfuAndApplyLogTheSameCampaignRecords() async throws {
    let state = NSTemporaryDirectory() + "dfu-apply-verbose-\(UUID().uuidString.prefix(8))"
    let profile = state + "/named.json"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: state) }
    try #"{"version": 1, "select": {"addresses": ["\#(Self.device)"]}, "desired": {"name": "logged"}}"#
      .write(toFile: profile, atomically: true, encoding: .utf8)
    let (_, _, dfu) = try await CLIProcess.run([
      "dfu", "update", "--package", DFUCommandTests.fixture("app_unsigned.zip"), "--adapter", "sim", "--scan", "3",
      "--address", Self.device, "--state-dir", state, "-v",
    ])
    let (_, _, apply) = try await CLIProcess.run([
      "apply", profile, "--adapter", "sim", "--scan", "3", "--state-dir", state, "-v",
    ])

    /// The device's `finished` record without its time and metadata values: "info beacon-provision.campaign: finished changes device state".
    func finished(_ errors: String) -> String? {
      errors.split(separator: "\n").first {
        $0.contains("beacon-provision.campaign: finished") && $0.contains("device=\(Self.device)")
      }
      .map { line in
        let words = line.split(separator: " ").dropFirst()
        return words.map { $0.split(separator: "=").first.map(String.init) ?? "" }.joined(separator: " ")
      }
    }
    let expected = "info beacon-provision.campaign: finished changes device state"
    #expect(finished(dfu) == expected, "\(dfu)")
    #expect(finished(apply) == expected, "\(apply)")
    for errors in [dfu, apply] {
      #expect(errors.contains(" started; if it is cut short, finish it with  beacon-provision "), "\(errors)")
      #expect(errors.contains("1 device selected"), "\(errors)")
    }
  }
}
