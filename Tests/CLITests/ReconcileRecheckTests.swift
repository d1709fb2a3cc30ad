import ArgumentParser
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --recheck` and `--forget-after` (`DurationText`): a positive number of seconds, or of minutes,
/// hours or days with m, h or d; `--forget-after` also takes `never`.
@Suite(.timeLimit(.minutes(1))) struct ReconcileRecheckTests {
  func seconds(_ text: String) throws -> Double? {
    try ReconcileCommand.parse(["site.json", "--recheck", text]).recheckSeconds
  }

  @Test func aNumberWithAnOptionalUnitIsSeconds() throws {
    #expect(try seconds("90") == 90)
    #expect(try seconds("30s") == 30)
    #expect(try seconds("1.5m") == 90)
    #expect(try seconds("2h") == 7200)
    #expect(try seconds("1d") == 86400)
  }

  @Test func anythingElseIsRefusedBeforeTheRun() {
    for text in ["0", "0d", "d", "1w", "inf", "nan", "1dd", "", "1e305d"] {
      #expect(throws: (any Error).self, "\(text)") { _ = try seconds(text) }
    }
  }

  @Test func forgetAfterIsADurationOrNeverAndThirtyDaysByDefault() throws {
    #expect(DurationText.seconds(try ReconcileCommand.parse(["site.json"]).forgetAfter) == 30 * 86400)
    #expect(
      DurationText.seconds(try ReconcileCommand.parse(["site.json", "--forget-after", "12h"]).forgetAfter) == 43200)
    #expect(
      DurationText.seconds(try ReconcileCommand.parse(["site.json", "--forget-after", "never"]).forgetAfter) == nil)
    for text in ["0", "soon", "-1d", ""] {
      let error = #expect(throws: (any Error).self, "\(text)") {
        _ = try ReconcileCommand.parse(["site.json", "--forget-after", text])
      }
      #expect(error.map { ReconcileCommand.message(for: $0).contains("--forget-after") } == true, "\(text)")
    }
  }
}
