import Foundation
import JSON
import KBeacon
import Simulator
import TestClocks
import Testing

@testable import BeaconProvisionCLI

/// Hostile-input review, text-stream devices: a reader that says `+EVENT:CONNECTED` as soon as it is subscribed and
/// sends `+EVENT:LATE` after each answer, later than --timeout-next ends the answer. Both are shown as unsolicited — in
/// the text output and in --json's own fields — and neither is inside the answer.
///
/// The tail is sent when the test says, not at a time on the wall clock: the device's late-fragment delay runs on a
/// `ManualClock` (`TextDeviceSimulation.lateFragmentClock`) that the test moves past it when the command logs that the
/// answer ended (`-v`'s `answered`, logged once the lines that came before the answer are taken). So it comes after
/// the answer's window and after those lines whatever the load, and has the command's
/// whole last wait (--timeout-next, 5 s) to arrive. Its delay is a minute (the longest a fleet file takes), so a device
/// that sent it on the wall clock would not send it within the command, and the test would fail. (It raced the wall
/// clock before: a tail sent 12 s after the answer, against windows at 8 s and 16 s, once came after the last wait
/// under AddressSanitizer on two busy cores, the test taking 202 s against 50 s alone.) The first answer is awaited for
/// 10 s (`--timeout-first`; 2 s by default): under AddressSanitizer on two busy cores the connection and subscription
/// alone once took longer, and this test is about what surrounds the answer.
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct TxrxUnsolicitedTests {
  static let address = "C7:08:00:00:00:20"

  func withFleet(_ body: (String) async throws -> Void) async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "txrx-unsolicited-\(UUID().uuidString).json")
    try Data(
      #"""
      {"version":1,"devices":[{"address":"\#(Self.address)","kind":"tertiumReader",
        "textStream":{"greeting":"+EVENT:CONNECTED","lateFragment":"+EVENT:LATE","lateFragmentMs":60000}}]}
      """#.utf8
    ).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    try await body("sim:\(file.path)")
  }

  /// Runs `txrx … VER` on a fresh manual clock, moving it past the tail's delay when the answer has ended, and
  /// returns what it printed.
  func runReleasingTheTail(_ adapter: String, json: Bool) async throws -> [String] {
    let arguments =
      ["txrx", Self.address, "VER", "--adapter", adapter, "--timeout-next", "5", "--timeout-first", "10"]
      + (json ? ["--json"] : [])
    let command = try #require(try BeaconProvision.parseAsRoot(arguments) as? TxrxCommand)
    let clock = ManualClock()
    let out = KBeaconCommandTests.Lines()
    let release = CLILog.Destination(level: .debug) { line in
      if line.contains("beacon-provision.txrx: answered") { clock.advance(by: .seconds(60)) }
    }
    try await TextDeviceSimulation.$lateFragmentClock.withValue(clock) {
      try await CLILog.$destination.withValue(release) { try await command.execute { out.append($0) } }
    }
    #expect(clock.now.offset == .seconds(60), "the answer's end was logged once")
    return out.all
  }

  @Test func aGreetingAndALateTailAreShownAsUnsolicited() async throws {
    try await withFleet { adapter in
      let lines = try await runReleasingTheTail(adapter, json: false)
      #expect(
        lines == ["(unsolicited) +EVENT:CONNECTED", "TxRx-SIM 1.0 tertium-txrx", "(unsolicited) +EVENT:LATE"],
        "\(lines)")
      let json = try await runReleasingTheTail(adapter, json: true).joined(separator: "\n")
      let first = try #require(try JSONParser.parse(json).arrayValue?.first?.objectValue)
      #expect(first["answer"]?.stringValue == "TxRx-SIM 1.0 tertium-txrx\r\n")
      #expect(first["unsolicited"] == .array([.string("+EVENT:CONNECTED")]))
      #expect(first["unsolicitedAfter"] == .array([.string("+EVENT:LATE")]))
    }
  }
}
