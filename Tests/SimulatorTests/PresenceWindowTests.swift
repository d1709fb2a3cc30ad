import BeaconCore
import Foundation
import Testing

@testable import Simulator

/// Scripted presence: a device advertises only inside its `presence` windows; a schedule of devices gone
/// for good ends.
@Suite(.timeLimit(.minutes(5))) struct PresenceWindowTests {
  static func device(_ presence: String) throws -> SimulatedDevice {
    let json =
      #"{"address": "AC:23:3F:00:20:01", "kind": "iBeacon", "intervalMs": 100, "presence": \#(presence), "#
      + #""iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}}"#
    return try JSONDecoder().decode(SimulatedDevice.self, from: Data(json.utf8))
  }

  @Test func silentBetweenWindowsAndDoneAfterTheLast() throws {
    var schedule = AdvertisingSchedule(
      devices: [try Self.device(#"[{"from": 0, "to": 1}, {"from": 3, "to": 4.5}]"#)], active: false)
    var seconds: [Double] = []
    while let report = schedule.next() {
      seconds.append(Double(report.offset.components.seconds) + Double(report.offset.components.attoseconds) / 1e18)
    }
    #expect(!seconds.isEmpty && seconds.allSatisfy { $0 < 1 || (3 <= $0 && $0 < 4.5) })
    #expect(seconds.contains { $0 < 1 } && seconds.contains { $0 >= 4 })
  }

  @Test func aWindowThatEndsBeforeItStartsIsRefused() {
    #expect(throws: DecodingError.self) { try Self.device(#"[{"from": 5, "to": 2}]"#) }
    #expect(throws: DecodingError.self) { try Self.device(#"[{"from": 0, "until": 2}]"#) }
  }
}
