import ArgumentParser
import Fleet
import Foundation
import Logging
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// `-v` / `--log-level`: one line per record on standard error (`StderrLogHandler`), the connection,
/// authentication and campaign steps logged, and a password never in a log line.
@Suite("Logging", .isolatedState, .timeLimit(.minutes(2)))
struct LoggingTests {
  final class Capture: Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func write(_ line: String) { lines.withLock { $0.append(line) } }
  }

  static let secret = "door-secret-1"
  static let fleetJSON = #"""
    {"version":1,"devices":[{"address":"BC:57:29:AA:BB:01","kind":"kbeaconPro","name":"Door","intervalMs":100,
      "system":{"model":12,"batteryPercent":90,"firmware":"5.22"},"kbeacon":{"password":"door-secret-1"}}]}
    """#

  /// Runs a parsed `read` with its log level, capturing the log lines.
  func readLogged(_ extra: [String]) async throws -> (lines: [String], failure: CLIFailure?) {
    let dir = FileManager.default.temporaryDirectory
    let fleet = dir.appendingPathComponent("log-fleet-\(UUID().uuidString).json")
    let pw = dir.appendingPathComponent("log-pw-\(UUID().uuidString)")
    try Data(Self.fleetJSON.utf8).write(to: fleet)
    try Data((Self.secret + "\n").utf8).write(to: pw)
    defer {
      try? FileManager.default.removeItem(at: fleet)
      try? FileManager.default.removeItem(at: pw)
    }
    let arguments =
      ["read", "BC:57:29:AA:BB:01", "--adapter", "sim:\(fleet.path)"]
      + extra.map { $0 == "PWFILE" ? pw.path : $0 }
    let command = try #require(try BeaconProvision.parseAsRoot(arguments) as? ReadCommand)
    let capture = Capture()
    let destination = CLILog.Destination(level: command.logging.effectiveLevel, write: capture.write)
    var failure: CLIFailure?
    do {
      try await CLILog.$destination.withValue(destination) { try await command.execute { _ in } }
    } catch let error as CLIFailure {
      failure = error
    }
    return (capture.all, failure)
  }

  @Test func verbosityPicksTheLevel() throws {
    #expect(try LoggingOptions.parse([]).effectiveLevel == .warning)
    #expect(try LoggingOptions.parse(["-v"]).effectiveLevel == .info)
    #expect(try LoggingOptions.parse(["-vv"]).effectiveLevel == .debug)
    #expect(try LoggingOptions.parse(["--verbose", "-v", "-v"]).effectiveLevel == .trace)
    #expect(try LoggingOptions.parse(["-v", "--log-level", "error"]).effectiveLevel == .error)
    #expect(throws: (any Error).self) { try LoggingOptions.parse(["--log-level", "loud"]) }
  }

  @Test func oneLinePerRecordWithSortedMetadata() {
    let time = Date(timeIntervalSince1970: 1_795_000_000.25)
    let line = StderrLogHandler.line(
      time: time, level: .info, label: "beacon-provision.kbeacon", message: "authenticated",
      metadata: ["generation": "pro", "device": "BC:57:29:AA:BB:01"])
    #expect(
      line
        == "2026-11-18T11:06:40.250Z info beacon-provision.kbeacon: authenticated device=BC:57:29:AA:BB:01 generation=pro"
    )
  }

  @Test func verboseLogsTheConnectionAndAuthenticationAndNeverThePassword() async throws {
    let (lines, failure) = try await readLogged(["--password-file", "PWFILE", "-v"])
    #expect(failure == nil)
    #expect(
      lines.contains {
        $0.contains(" info beacon-provision.kbeacon: connecting adapter=sim:")
          && $0.hasSuffix("device=BC:57:29:AA:BB:01 type=public")
      })
    #expect(lines.contains { $0.contains("authenticated") && $0.contains("generation=pro") })
    #expect(lines.allSatisfy { !$0.contains("\n") })
    #expect(!lines.contains { $0.contains(Self.secret) })
  }

  @Test func debugNamesThePasswordSourceOnlyEvenWhenItIsAnArgument() async throws {
    let (lines, _) = try await readLogged(["--password", Self.secret, "--insecure-password-argument", "-vv"])
    #expect(
      lines.contains { $0.contains("debug beacon-provision.kbeacon: password") && $0.contains("source=--password") })
    #expect(lines.contains { $0.contains("address type") })
    #expect(!lines.contains { $0.contains(Self.secret) })
    // A wrong password: the failure is logged, the password that was tried is not.
    let wrong = try await readLogged([
      "--password", "not-the-secret", "--insecure-password-argument", "--log-level", "trace",
    ])
    #expect(wrong.failure?.exitCode == KBeaconConnector.wrongPasswordExitCode)
    #expect(wrong.lines.contains { $0.contains("session failed") })
    #expect(!wrong.lines.contains { $0.contains("not-the-secret") })
  }

  @Test func quietByDefault() async throws {
    let (lines, failure) = try await readLogged(["--password-file", "PWFILE"])
    #expect(failure == nil && lines.isEmpty)
  }

  @Test func campaignStepsAreLogged() async throws {
    let capture = Capture()
    CLILog.$destination.withValue(CLILog.Destination(level: .debug, write: capture.write)) {
      CampaignLog.record(.step(address: "BC:57:29:AA:BB:01", .connecting, attempt: 1))
      CampaignLog.record(
        .retrying(address: "BC:57:29:AA:BB:01", attempt: 1, after: .seconds(5), reason: "disconnected"))
      CampaignLog.record(.finished(address: "BC:57:29:AA:BB:01", .failed("wrong password", .wrongPassword)))
    }
    #expect(capture.all.count == 3)
    #expect(capture.all[0].hasSuffix("debug beacon-provision.campaign: connecting attempt=1 device=BC:57:29:AA:BB:01"))
    #expect(
      capture.all[2].contains("info beacon-provision.campaign: finished")
        && capture.all[2].contains("reason=wrong password"))
  }
}
