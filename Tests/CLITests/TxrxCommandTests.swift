import ArgumentParser
import Foundation
import JSON
import KBeacon
import Simulator
import Testing
import TextStream

@testable import BeaconProvisionCLI

/// `txrx` in process against the simulated text-stream devices: the built-in fleet's Tertium
/// TxRx reader and Nordic-UART AT device, and fleet files with slow or busy readers.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct TxrxCommandTests {
  static let reader = "C7:08:00:00:00:01"
  static let uart = "6E:40:00:00:00:01"

  /// Runs `txrx`; without a `--timeout-next`, with 1 s, so a fragment a loaded machine delivers late does
  /// not end an answer early, and without a `--timeout-ack`, with 30 s (ThreadSanitizer on two busy cores
  /// once kept a simulated device's Write Response past the default 2 s, and AddressSanitizer's parallel pass
  /// past 10 s, 2026-12-01); the timing itself is tested in TextStreamTests on a manual clock.
  func run(_ arguments: [String]) async throws -> [String] {
    let patient =
      (arguments.contains("--timeout-next") ? [] : ["--timeout-next", "1"])
      + (arguments.contains("--timeout-ack") ? [] : ["--timeout-ack", "30"])
    let command = try #require(try BeaconProvision.parseAsRoot(["txrx"] + arguments + patient) as? TxrxCommand)
    let out = KBeaconCommandTests.Lines()
    try await command.execute { out.append($0) }
    return out.all
  }

  /// Each first answer is awaited for 10 s (default 2 s): under ThreadSanitizer on two busy cores the
  /// connection and subscription once took longer, and this test is about answers that span notifications.
  @Test func readerAnswersSpanNotifications() async throws {
    let lines = try await run([Self.reader, "VER", "INVENTORY", "--adapter", "sim", "--timeout-first", "10"])
    try #require(lines.count >= 3, "\(lines)")
    #expect(lines.first == "> VER")
    #expect(lines[1] == "TxRx-SIM 1.0 tertium-txrx")
    #expect(lines[2] == "> INVENTORY")
    #expect(lines.filter { $0.hasPrefix("EPC=") }.count == 12 && lines.last == "OK")
    let json = try await run([Self.reader, "INVENTORY", "--adapter", "sim", "--timeout-first", "10", "--json"])
      .joined(separator: "\n")
    let first = try #require(try JSONParser.parse(json).arrayValue?.first?.objectValue)
    #expect((first["notifications"]?.intValue ?? 0) >= 2)  // ~470 bytes in notifications of 240 (the packet size)
  }

  /// An AT device keeps what is set, across runs (the simulator's saved state), and answers ERROR to an
  /// out-of-range value; a single command prints its answer alone. Timing is not what this tests: each answer
  /// is awaited for 10 s (default 2 s) and may pause 1 s between fragments (default 200 ms). Under
  /// ThreadSanitizer on two busy cores an answer came later than 2 s once, and once paused long enough to be
  /// cut, so that the next command found the device still busy.
  @Test func atDeviceSettingsPersistAcrossRuns() async throws {
    #expect(
      try await run([
        Self.uart, "AT+NAME=Dock-7", "AT+TXPOWER=-4", "--adapter", "sim", "--timeout-first", "10", "--timeout-next",
        "1",
      ]) == [
        "> AT+NAME=Dock-7", "OK", "> AT+TXPOWER=-4", "OK",
      ])
    #expect(
      try await run([Self.uart, "AT+NAME?", "--adapter", "sim", "--timeout-first", "10", "--timeout-next", "1"]) == [
        "+NAME:Dock-7", "OK",
      ])
    #expect(
      try await run([Self.uart, "AT+TXPOWER=5", "--adapter", "sim", "--timeout-first", "10", "--timeout-next", "1"])
        == ["ERROR"])
    #expect(
      try await run([
        Self.uart, "AT+TXPOWER?", "--adapter", "sim", "--timeout-first", "10", "--timeout-next", "1", "--profile",
        "nordic-uart",
      ])
        == [
          "+TXPOWER:-4", "OK",
        ])
  }

  /// A slow reader: the first-packet timeout given on the command line fails the command (JSON names the
  /// error), a longer one gets the answer; a busy reader is reported as such. The reader answers after 8 s
  /// against a 0.2 s timeout: a 0.2 s timer that fired late on two busy cores once let a 1 s answer through
  /// (AddressSanitizer), and once a 3 s one (ThreadSanitizer, 2026-12-01).
  @Test func timeoutsAndBusyFromAFleetFile() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("txrx-fleet-\(UUID().uuidString).json")
    try Data(
      #"""
      {"version":1,"devices":[
        {"address":"C7:08:00:00:00:10","kind":"tertiumReader","textStream":{"answerDelayMs":8000}},
        {"address":"C7:08:00:00:00:11","kind":"tertiumReader","textStream":{"profile":"zhaga","busy":true}}]}
      """#.utf8
    ).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let adapter = "sim:\(file.path)"
    do {
      _ = try await run(["C7:08:00:00:00:10", "VER", "--adapter", adapter, "--timeout-first", "0.2", "--json"])
      Issue.record("expected a failure")
    } catch let failure as CLIFailure {
      #expect(failure.message == "1 of 1 commands failed")
    }
    #expect(
      try await run(["C7:08:00:00:00:10", "VER", "--adapter", adapter, "--timeout-first", "30"]) == [
        "TxRx-SIM 1.0 tertium-txrx"
      ])
    await #expect(throws: CLIFailure.self) { try await run(["C7:08:00:00:00:11", "VER", "--adapter", adapter]) }
  }

  @Test func argumentsAreCheckedBeforeConnecting() {
    for bad in [
      [Self.reader], [Self.reader, "VER", "--profile", "nope"], [Self.reader, "VER", "--interactive"],
      [Self.reader, "--interactive", "--json"], [Self.reader, "VER", "--timeout-first", "0"],
      [Self.reader, "VER", "--terminator", "tab"], ["not-an-address", "VER"],
      [Self.reader, "VER", "--timeout-ack", "-1"],
    ] {
      #expect(throws: (any Error).self, "\(bad)") { try BeaconProvision.parseAsRoot(["txrx"] + bad) }
    }
  }

  /// `--timeout-ack` sets every fragment's acknowledgement timeout; without it the profile's stay.
  @Test func theAcknowledgementTimeoutIsTheOperators() throws {
    let given = try #require(
      try BeaconProvision.parseAsRoot(["txrx", Self.reader, "VER", "--timeout-ack", "7.5"]) as? TxrxCommand)
    let timeouts = given.timeouts(for: .tertiumTxRx)
    #expect(timeouts.firstFragmentSend == .milliseconds(7500) && timeouts.laterFragmentSend == .milliseconds(7500))
    let plain = try #require(try BeaconProvision.parseAsRoot(["txrx", Self.reader, "VER"]) as? TxrxCommand)
    #expect(plain.timeouts(for: .tertiumTxRx) == TextStreamProfile.tertiumTxRx.timeouts)
  }

  /// `scan` marks the devices that advertise a text-stream service.
  @Test func scanMarksTextStreamDevices() async throws {
    let (_, lines) = try await ScanCommandTests.run(["--adapter", "sim", "--duration", "2"], mode: .lines)
    #expect(lines.contains { $0.contains(Self.reader) && $0.contains("text stream: Tertium TxRx (txrx)") })
    #expect(lines.contains { $0.contains(Self.uart) && $0.contains("text stream: Nordic UART Service (txrx)") })
    #expect(lines.filter { $0.contains("text stream:") }.count == 2)
  }
}
