import ArgumentParser
import Testing

@testable import BeaconProvisionCLI

/// `reconcile --recheck`: a positive number of seconds, or of minutes, hours or days with m, h or d.
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
}
