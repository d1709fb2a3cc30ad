import CampaignPipeline
import Fleet
import Foundation
import JSON
import Profiles
import Testing

@testable import BeaconProvisionCLI

/// `plan --json` and `apply --json`: each change's values are JSON values — a number a number, text a string, a key
/// the device does not have null — so a script compares them as they are (they were strings of JSON text:
/// `"new": "1022.5"`, `"new": "\"aisle-01\""`).
@Suite(.timeLimit(.minutes(1))) struct CampaignReportJSONTests {
  @Test func changeValuesAreJSONValuesOfTheirOwnType() throws {
    let changes = [
      ConfigChange(scope: .common, key: "name", old: .text("KBPro_1"), new: .text("aisle-01")),
      ConfigChange(scope: .slot(0), key: "advPrd", old: .integer(800), new: .number(1022.5)),
      ConfigChange(scope: .slot(0), key: "majorID", old: nil, new: .integer(100)),
      // A password change as the campaign reports it: masked before it gets here.
      ConfigChange(scope: .common, key: "pwd", old: nil, new: .text("••••••••")),
    ]
    let summary = CampaignSummary(run: "R", outcomes: ["DD:34:02:06:D1:01": .planned(changes)], interrupted: false)
    let json = try CampaignReport.json(CampaignResult(outcome: CampaignOutcome(summary: summary), finish: []))
    let device = try #require(try JSONParser.parse(Array(json.utf8)).objectValue?["devices"]?.arrayValue?.first)
    let listed: [JSONObject] = try #require(device.objectValue?["changes"]?.arrayValue).compactMap { $0.objectValue }
    let new: [JSONValue?] = listed.map { $0["new"] }
    let old: [JSONValue?] = listed.map { $0["old"] }
    #expect(new == [.string("aisle-01"), .double(1022.5), .int(100), .string("••••••••")])
    #expect(old == [.string("KBPro_1"), .int(800), .null, .null])
  }

  /// A number JSON cannot hold (a device's `1e400` reads as infinity) is its text; the report is still written.
  @Test func aNumberJSONCannotHoldIsWrittenAsItsText() throws {
    let change = ConfigChange(scope: .slot(0), key: "advPrd", old: .number(.infinity), new: .number(1022.5))
    let summary = CampaignSummary(run: "R", outcomes: ["DD:34:02:06:D1:01": .planned([change])], interrupted: false)
    let json = try CampaignReport.json(CampaignResult(outcome: CampaignOutcome(summary: summary), finish: []))
    let device = try #require(try JSONParser.parse(Array(json.utf8)).objectValue?["devices"]?.arrayValue?.first)
    let listed = try #require(device.objectValue?["changes"]?.arrayValue?.first?.objectValue)
    #expect(listed["old"] == .string("inf") && listed["new"] == .double(1022.5))
  }
}
