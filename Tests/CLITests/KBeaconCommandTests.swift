import ArgumentParser
import Foundation
import JSON
import KBeacon
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// `read`, `ring`, `reset`, `history` run in process against the built-in simulated fleet
/// (`--adapter sim`): the real CLI → GATT client → socketpair bearer → simulated KBeacon GATT server path.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct KBeaconCommandTests {
  final class Lines: Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var text: String { all.joined(separator: "\n") }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
  }

  func parse<C: ParsableCommand>(_ arguments: [String], as type: C.Type) throws -> C {
    try #require(try BeaconProvision.parseAsRoot(arguments) as? C)
  }

  @Test func readPrintsTheFullConfigurationAsJSON() async throws {
    let command = try parse(["read", "DD:34:02:06:D1:01", "--adapter", "sim"], as: ReadCommand.self)
    let out = Lines()
    try await command.execute { out.append($0) }
    let root = try #require(try JSONParser.parse(out.text).objectValue)
    #expect(root["address"] == .string("DD:34:02:06:D1:01"))
    #expect(root["generation"] == .string("pro"))
    let config = try KBeaconConfiguration(
      deviceJSON: try #require(root["configuration"]?.objectValue), generation: .pro)
    #expect(config.common[CommonKey.name] == "KBPro_214811")
    #expect(config.slots.count == 5 && config.triggers.count == 5 && config.sensors.count == 2)
    #expect(config.common.fields["pwd"] == nil)
  }

  @Test func readDetectsALegacyKBeacon() async throws {
    let command = try parse(["read", "BC:57:29:00:12:01", "--adapter", "sim"], as: ReadCommand.self)
    let out = Lines()
    try await command.execute { out.append($0) }
    let root = try #require(try JSONParser.parse(out.text).objectValue)
    #expect(root["generation"] == .string("legacy"))
    #expect(root["configuration"]?.objectValue?["devName"] == .string("KBeacon_1201"))
  }

  @Test func wrongPasswordFromAFileFailsWithItsOwnExitCodeAndNeverShowsTheSecret() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("kb-pw-\(UUID().uuidString)")
    try Data("not-the-password\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let command = try parse(
      ["read", "DD:34:02:06:D1:02", "--adapter", "sim", "--password-file", file.path], as: ReadCommand.self)
    do {
      try await command.execute { _ in }
      Issue.record("expected a failure")
    } catch let failure as CLIFailure {
      #expect(failure.exitCode == KBeaconConnector.wrongPasswordExitCode)
      #expect(failure.message.contains("wrong password"))
      #expect(!failure.message.contains("not-the-password"))
    }
  }

  @Test func passwordArgumentNeedsTheInsecureFlag() throws {
    #expect(throws: (any Error).self) {
      try BeaconProvision.parseAsRoot(["read", "DD:34:02:06:D1:01", "--password", "0000000000000000"])
    }
    let ok = try parse(
      ["read", "DD:34:02:06:D1:01", "--password", "0000000000000000", "--insecure-password-argument"],
      as: ReadCommand.self)
    #expect(try ok.passwordOptions.resolve(environment: [:]) == .factoryDefault)
    let fromEnvironment = try parse(["read", "DD:34:02:06:D1:01"], as: ReadCommand.self)
    #expect(
      try fromEnvironment.passwordOptions.resolve(environment: ["BEACON_PASSWORD": "abcdefgh"])
        == KBeaconPassword("abcdefgh"))
    #expect(try fromEnvironment.passwordOptions.resolve(environment: [:]) == .factoryDefault)
    #expect(throws: CLIFailure.self) {
      try fromEnvironment.passwordOptions.resolve(environment: ["BEACON_PASSWORD": "short"])
    }
  }

  @Test func historyPrintsCSVInEveryOrder() async throws {
    for order in ["forward", "reverse"] {
      let command = try parse(
        ["history", "DD:34:02:06:D1:03", "--adapter", "sim", "--order", order, "--csv"], as: HistoryCommand.self)
      let out = Lines()
      try await command.execute { out.append($0) }
      #expect(out.all.first == "utc,time,temperature_c,humidity_pct")
      #expect(out.all.count == 25)  // header + the 24 records the demo fleet logs
      let times = out.all.dropFirst().map { UInt32($0.split(separator: ",")[0])! }
      #expect(times == (order == "forward" ? times.sorted() : times.sorted(by: >)))
    }
    let unread = try parse(
      ["history", "DD:34:02:06:D1:03", "--adapter", "sim", "--limit", "10"], as: HistoryCommand.self)
    let out = Lines()
    try await unread.execute { out.append($0) }
    #expect(out.all.last == "10 records")
  }

  /// A malformed address is a usage error (64), as ArgumentParser's own are, before any link.
  @Test func aMalformedAddressIsAUsageError() async throws {
    for command in ["read", "ring", "reset", "history"] {
      let parsed = try BeaconProvision.parseAsRoot([command, "DD:34:02:06:D1", "--adapter", "sim"])
      await #expect("\(command)") {
        switch parsed {
        case let c as ReadCommand: try await c.execute { _ in }
        case let c as RingCommand: try await c.execute { _ in }
        case let c as ResetCommand: try await c.execute { _ in }
        case let c as HistoryCommand: try await c.execute { _ in }
        default: Issue.record("\(command) parsed as \(type(of: parsed))")
        }
      } throws: {
        ($0 as? CLIFailure)?.exitCode == 64
      }
    }
  }

  @Test func ringAndReset() async throws {
    let ring = try parse(
      ["ring", "DD:34:02:06:D1:04", "--adapter", "sim", "--milliseconds", "500"], as: RingCommand.self)
    let out = Lines()
    try await ring.execute { out.append($0) }
    let reset = try parse(["reset", "DD:34:02:06:D1:04", "--adapter", "sim", "--yes"], as: ResetCommand.self)
    try await reset.execute { out.append($0) }
    #expect(
      out.all == ["DD:34:02:06:D1:04: ringing for 500 ms", "DD:34:02:06:D1:04: settings reset to factory defaults"])
    await #expect(throws: CLIFailure.self) {
      try await self.parse(["read", "AC:23:3F:00:00:01", "--adapter", "sim"], as: ReadCommand.self).execute { _ in }
    }
  }

  @Test func fleetFileKBeaconSectionSetsPasswordAndSettings() async throws {
    let dir = FileManager.default.temporaryDirectory
    let fleet = dir.appendingPathComponent("kb-fleet-\(UUID().uuidString).json")
    let pw = dir.appendingPathComponent("kb-pw-\(UUID().uuidString)")
    try Data(
      #"""
      {"version":1,"devices":[{"address":"BC:57:29:AA:BB:01","kind":"kbeaconPro","name":"Door",
        "system":{"model":12,"batteryPercent":90,"firmware":"5.22"},
        "kbeacon":{"password":"door-secret-1","settings":{"name":"door-1","advObj":[{"slot":0,"majorID":77}]},"historyRecords":3}}]}
      """#.utf8
    ).write(to: fleet)
    try Data("door-secret-1".utf8).write(to: pw)
    defer {
      try? FileManager.default.removeItem(at: fleet)
      try? FileManager.default.removeItem(at: pw)
    }
    let command = try parse(
      ["read", "BC:57:29:AA:BB:01", "--adapter", "sim:\(fleet.path)", "--password-file", pw.path], as: ReadCommand.self)
    let out = Lines()
    try await command.execute { out.append($0) }
    let root = try #require(try JSONParser.parse(out.text).objectValue)
    let config = try KBeaconConfiguration(
      deviceJSON: try #require(root["configuration"]?.objectValue), generation: .pro)
    #expect(config.common[CommonKey.name] == "door-1")
    #expect(config.slot(0)?[SlotKey.majorID] == 77)
  }
}
