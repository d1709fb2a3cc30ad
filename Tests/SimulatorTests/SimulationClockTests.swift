import BeaconCore
import Foundation
import KBeacon
import Testing

@testable import Simulator

/// The fleet file's scripting for `reconcile`: presence windows on the simulation's clock, which
/// a long run's many scans see move, and a KBeacon whose configuration drifts on its own at a set time —
/// seen on the air and by a read alike, and not logged as a write.
@Suite(.timeLimit(.minutes(1))) struct SimulationClockTests {
  @Test func windowsOnTheSimulationClockMoveIntoEachScansTimeLine() throws {
    let windows = [
      PresenceWindow(from: 0, to: 5, clock: "simulation"), PresenceWindow(from: 10, clock: "simulation"),
      PresenceWindow(from: 2, to: 3),
    ]
    #expect(
      windows.relative(toScanAt: 7) == [
        PresenceWindow(from: 3), PresenceWindow(from: 2, to: 3),
      ])
    #expect(windows.relative(toScanAt: 0) == [PresenceWindow(from: 0, to: 5), PresenceWindow(from: 10), windows[2]])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(PresenceWindow.self, from: Data(#"{"from": 1, "clock": "wall"}"#.utf8))
    }
  }

  static func fleet(drift: String) throws -> SimulatedFleet {
    let json = #"""
      {"version": 1, "devices": [{"address": "DD:34:02:06:F1:01", "kind": "kbeaconPro", "name": "door",
        "intervalMs": 300, "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"},
        "kbeacon": {"drift": \#(drift)}}]}
      """#
    return try JSONDecoder().decode(SimulatedFleet.self, from: Data(json.utf8))
  }

  @Test func aDeviceDriftsOnItsOwnOnceItsTimeHasComeAndNoWriteIsCounted() async throws {
    let fleet = try Self.fleet(drift: #"{"after": 0.3, "set": {"name": "stray"}}"#)
    let simulation = KBeaconSimulation(fleet: fleet, now: { 0 })
    let entry = try #require(fleet.devices.first)
    #expect(await simulation.advertisedDevice(entry).name == "door")
    try await Task.sleep(for: .milliseconds(400))
    #expect(await simulation.advertisedDevice(entry).name == "stray")
    let device = try #require(simulation.kbeacon(entry.address))
    #expect(await device.configuration.common.fields["name"] == .string("stray"))
    #expect(await device.configurationWrites == 0)
  }

  @Test func aDriftWithAnInvalidShapeIsRefused() {
    #expect(throws: DecodingError.self) { try Self.fleet(drift: #"{"after": -1, "set": {"name": "x"}}"#) }
    #expect(throws: DecodingError.self) { try Self.fleet(drift: #"{"after": 1, "set": 3}"#) }
    #expect(throws: DecodingError.self) { try Self.fleet(drift: #"{"after": 1, "set": {}, "when": 2}"#) }
  }
}
