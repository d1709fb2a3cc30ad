import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `plan` says why a device heard on the air was not selected: with `--explain` in the table, always in
/// `--json`; and a run that selects none says that devices were heard.
@Suite("plan --explain", .isolatedState, .timeLimit(.minutes(2))) struct PlanExplainTests {
  @Test func devicesHeardButNotSelectedAreListedWithTheReason() async throws {
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent("renamed-\(UUID().uuidString).json")
      .path
    // No device of the built-in fleet is called "aisle-*" (as after an apply that renamed them).
    try #"{"version": 1, "select": {"name": "aisle-*"}, "desired": {"measuredPower": -59}}"#
      .write(toFile: profile, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let options = try ProvisionOptions.parse([profile, "--adapter", "sim", "--scan", "2", "--json"])
    let result = try await ApplyInvocation(options: options, dryRun: true, resume: nil, pace: .unpaced).run()
    #expect(result.summary.outcomes.isEmpty)
    let kbeacon = try #require(result.notSelected.first { $0.address == "DD:34:02:06:D1:02" })
    #expect(kbeacon.reason == "name 'KBPro_214812' does not match 'aisle-*'")

    let table = CampaignReport.table(result)
    #expect(table.contains("heard but not selected: plan --explain says why"))
    #expect(
      CampaignReport.table(result, explain: true).contains(
        "DD:34:02:06:D1:02  not selected: name 'KBPro_214812' does not match 'aisle-*'"))
    let json = try JSONSerialization.jsonObject(with: Data(try CampaignReport.json(result).utf8)) as? [String: Any]
    let listed = try #require(json?["notSelected"] as? [[String: Any]])
    #expect(
      listed.contains {
        $0["address"] as? String == "DD:34:02:06:D1:02" && ($0["reason"] as? String)?.contains("does not match") == true
      })
  }
}
