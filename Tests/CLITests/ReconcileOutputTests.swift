import Foundation
import Testing

@testable import BeaconProvisionCLI

/// Every `reconcile` event's `at`: ISO 8601 in UTC with milliseconds, the form scripts and the tests parse.
@Suite(.timeLimit(.minutes(1))) struct ReconcileOutputTests {
  @Test func eventTimesAreUTCWithMilliseconds() throws {
    let before = Date()
    let text = ReconcileOutput.timestamp()
    #expect(text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(text)")
    let parsed = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    #expect(abs(parsed.timeIntervalSince(before)) < 5)
  }
}
