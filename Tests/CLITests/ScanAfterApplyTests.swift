import BeaconCore
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// The operator's loop on the built-in fleet: `apply` a profile, then `scan` — the applied KBeacon advertises
/// its new iBeacon major/minor and name, in the same process (the same simulated central) and in the next
/// one (a fresh central over the same state directory); untouched devices advertise as before.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct ScanAfterApplyTests {
  static let target = "DD:34:02:06:D1:02"

  /// A profile for one demo KBeacon Pro: name "lobby-2", slot 0 iBeacon major 4321, minor 9.
  static func profile() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("lobby-\(UUID().uuidString).json").path
    try #"""
    {"version": 1, "select": {"addresses": ["\#(target)"]},
     "desired": {"name": "lobby-2", "slots": [{"slot": 0, "type": "ibeacon", "major": 4321, "minor": 9}]}}
    """#.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func scan(_ central: any Central) async throws -> [DeviceRecord] {
    let command = try ScanCommand.parseAsRoot(["--adapter", "sim", "--duration", "3", "--json"]) as! ScanCommand
    let output = try await command.runner(mode: .json).run(central: central) { _ in }
    return try JSONDecoder().decode([DeviceRecord].self, from: Data(try #require(output).utf8))
  }

  static func iBeacon(_ records: [DeviceRecord], _ address: String) throws -> (IBeaconFrame, String?) {
    let record = try #require(records.first { $0.address.description == address })
    guard case .iBeacon(let frame)? = record.frame(.iBeacon) else { throw Missing(what: "iBeacon of \(address)") }
    return (frame, record.name)
  }

  struct Missing: Error { var what: String }

  @Test func aScanAfterApplyShowsTheNewValuesAndTheOthersUnchanged() async throws {
    let profile = try Self.profile()
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let central = try await CentralFactory.make(.simulated(fleetFile: nil), pace: .unpaced)

    let before = try await Self.scan(central)
    let (old, oldName) = try Self.iBeacon(before, Self.target)
    #expect(old.major == 100 && old.minor == 2 && oldName == "KBPro_214812")

    let options = try ProvisionOptions.parse([profile, "--adapter", "sim", "--scan", "3", "--retry-delay", "0"])
    var runner = ApplyInvocation(options: options, dryRun: false, resume: nil, pace: .unpaced)
    runner.central = central
    let result = try await runner.run()
    #expect(result.summary.count(.verified) == 1)

    // The same central: the scan started after the write.
    try Self.expectApplied(try await Self.scan(central), before: before)
    // The next command: a fresh central restored from the state directory.
    try Self.expectApplied(
      try await Self.scan(try await CentralFactory.make(.simulated(fleetFile: nil), pace: .unpaced)), before: before)
  }

  static func expectApplied(_ records: [DeviceRecord], before: [DeviceRecord]) throws {
    let (new, name) = try iBeacon(records, target)
    #expect(new.major == 4321 && new.minor == 9 && name == "lobby-2")
    #expect(new.uuid == DemoFleet.kkmUUID && new.measuredPower == -59)  // keys the profile left alone
    let target = try #require(records.first { $0.address.description == Self.target })
    #expect(target.frame(.kSensor) != nil && target.frame(.kkmSystem) != nil)  // its other slots still advertise
    // Every other device sends what it sent before (TLM counters aside: they are live).
    #expect(records.map(\.address) == before.map(\.address))
    func fixed(_ record: DeviceRecord) -> [BeaconFrame] { record.frames.filter { $0.kind != .eddystoneTLM } }
    for (after, earlier) in zip(records, before) where after.address.description != Self.target {
      #expect(after.name == earlier.name && after.connectable == earlier.connectable, "\(after.address)")
      #expect(fixed(after) == fixed(earlier), "\(after.address)")
    }
  }
}
