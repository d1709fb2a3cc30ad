import Foundation
import JSON
import Testing

@testable import Simulator

/// Hostile-input review, "Wording": a number beyond Double in a fleet file (7E2000) was "not valid JSON" with no path, or
/// "expected a string" where a string belongs; it is named as out of range, with its path and place.
@Suite(.timeLimit(.minutes(1))) struct FleetFileNumberTests {
  static func error(_ text: String) -> JSONDiagnostic? {
    do {
      _ = try SimulatedFleet.decode(Data(text.utf8), file: "f.json")
      return nil
    } catch {
      return error
    }
  }

  @Test func aNumberBeyondDoubleIsOutOfRangeAtItsPath() throws {
    let device =
      #"{"address":"DD:34:02:06:D1:01","kind":"kbeaconPro","iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":1}"#
    let interval = try #require(Self.error(#"{"version":1,"devices":["# + device + #","intervalMs":7E2000}]}"#))
    #expect(interval.description == "f.json:1:167: $.devices[0].intervalMs: 7E2000 is out of range", "\(interval)")
    let type = try #require(Self.error(#"{"version":1,"devices":["# + device + #","addressType":-7E2000}]}"#))
    #expect(type.description.hasPrefix("f.json:1:168: $.devices[0].addressType: -7E2000 is out of range"), "\(type)")
    #expect(!type.description.contains("expected a string"))
    // A number that fits is the wrong type, at its place.
    let plain = try #require(Self.error(#"{"version":1,"devices":["# + device + #","addressType":7}]}"#))
    #expect(
      plain.description == "f.json:1:168: $.devices[0].addressType: expected a string, found an integer", "\(plain)")
  }
}
