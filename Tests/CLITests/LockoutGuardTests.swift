import BeaconCore
import Fleet
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `apply` refuses a change that would leave a KBeacon with no connectable slot (it could be reached again
/// only by hand), unless the profile says `"allowUnreachable": true`.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct LockoutGuardTests {
  static let target = "DD:34:02:06:D1:02"

  static func profile(allowUnreachable: Bool) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("lockout-\(UUID().uuidString).json").path
    try #"""
    {"version": 1, "select": {"addresses": ["\#(target)"]}, "allowUnreachable": \#(allowUnreachable),
     "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": 1, "minor": 2, "connectable": false},
       {"slot": 1, "type": "off"}, {"slot": 2, "type": "off"}, {"slot": 3, "type": "off"}, {"slot": 4, "type": "off"}]}}
    """#.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func apply(_ profile: String, central: any Central) async throws -> CampaignSummary {
    let options = try ProvisionOptions.parse([profile, "--adapter", "sim", "--scan", "3", "--retry-delay", "0"])
    var runner = ApplyInvocation(options: options, dryRun: false, resume: nil, pace: .unpaced)
    runner.central = central
    return try await runner.run().summary
  }

  @Test func aLockoutIsRefusedWithTheWayOutAndAllowedWhenTheProfileSaysSo() async throws {
    let central = try await CentralFactory.make(.simulated(fleetFile: nil), pace: .unpaced)
    let refused = try Self.profile(allowUnreachable: false)
    defer { try? FileManager.default.removeItem(atPath: refused) }
    let first = try await Self.apply(refused, central: central)
    #expect(first.count(.failed) == 1 && first.count(.verified) == 0)
    let reason = first.outcomes.values.compactMap { if case .failed(let reason, _) = $0 { reason } else { nil } }.first
    #expect(reason?.contains("no advertising slot would be connectable") == true)
    #expect(reason?.contains("\"allowUnreachable\": true") == true)

    let allowed = try Self.profile(allowUnreachable: true)
    defer { try? FileManager.default.removeItem(atPath: allowed) }
    let second = try await Self.apply(allowed, central: central)
    #expect(second.count(.verified) == 1 && second.count(.failed) == 0)
  }
}
