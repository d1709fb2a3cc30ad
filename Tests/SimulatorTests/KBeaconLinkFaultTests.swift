import BeaconCore
import Foundation
import JSON
import KBeacon
import Testing

@testable import Simulator

/// The simulated KBeacon's link faults for the fault matrix (`KBeaconFaults`): a link lost before a
/// `cfg` (on the read), right after one (applied, unacknowledged) and a reboot mid-session. Frames as in
/// `SimulatedKBeaconDeviceTests` (docs/protocols/kbeacon.md §4.3 acks: 23 | seq = request length | window 0 | cause).
@Suite("KBeacon link faults", .timeLimit(.minutes(1))) struct KBeaconLinkFaultTests {
  func authenticated() -> SimulatedKBeaconDevice { SimulatedKBeaconDeviceTests().authenticated(mtu: 247) }
  static let getPara = hex("23 0000") + Array(#"{"msg":"getPara","type":2,"slot":4}"#.utf8)
  /// {"msg":"cfg","name":"door"} — 27 bytes, one SINGLE frame at MTU 247.
  static let rename = hex("23 0000") + Array(#"{"msg":"cfg","name":"door"}"#.utf8)

  @Test func aDroppedReadIsUnansweredAndTheNextReadIsAnswered() {
    var device = authenticated()
    device.faults.dropLinkOnReads = 1
    #expect(device.receive(Self.getPara, now: 0) == .init(notifications: [], disconnect: true))
    // the fault fired once: 23 0023 0000 0000 + {"advObj":[{"slot":4,"type":0}]} (35-byte request)
    #expect(
      device.receive(Self.getPara, now: 0).notifications == [
        hex("23 0023 0000 0000") + Array(#"{"advObj":[{"slot":4,"type":0}]}"#.utf8)
      ])
    #expect(device.configurationWrites == 0)
  }

  @Test func aWriteDroppedAfterItAppliesIsKeptButNeverAcknowledged() {
    var device = authenticated()
    device.faults.dropLinkAfterWrites = 1
    #expect(device.receive(Self.rename, now: 0) == .init(notifications: [], disconnect: true))
    #expect(device.configuration.common.fields["name"] == .string("door"))
    #expect(device.configurationWrites == 1)
    // the same write again (the app could not know) is acknowledged: 23 001B 0000 0000
    #expect(device.receive(Self.rename, now: 0).notifications == [hex("23 001B 0000 0000")])
  }

  @Test func aWriteDroppedBeforeItAppliesChangesNothing() {
    var device = authenticated()
    device.dropLinkOnWrites = 1
    #expect(device.receive(Self.rename, now: 0) == .init(notifications: [], disconnect: true))
    #expect(device.configuration.common.fields["name"] != .string("door"))
    #expect(device.configurationWrites == 0)
  }

  @Test func aRebootDropsTheLinkForgetsTheSessionAndKeepsTheConfiguration() {
    var device = authenticated()
    device.faults.rebootAtRequest = 2
    #expect(device.receive(Self.rename, now: 0).notifications == [hex("23 001B 0000 0000")])  // request 1
    #expect(device.receive(Self.getPara, now: 0) == .init(notifications: [], disconnect: true))  // request 2: reboot
    #expect(device.reboots == 1)
    #expect(!device.isAuthenticated)
    #expect(device.configuration.common.fields["name"] == .string("door"))  // flash survives
    // after the reboot a request needs a new authentication: 23 0000 0000 0107 (before auth)
    device.connected(mtu: 247)
    #expect(device.receive(Self.getPara, now: 0).notifications == [hex("23 0000 0000 0107")])
    #expect(device.reboots == 1)  // once only
  }

  @Test func theFleetFileCarriesTheFaultsAndChecksTheirRanges() throws {
    func decode(_ kbeacon: String) throws -> SimulatedFleet {
      let json =
        #"{"version": 1, "devices": [{"address": "DD:34:02:06:F0:00", "kind": "kbeaconPro", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}, "kbeacon": \#(kbeacon)}]}"#
      return try SimulatedFleet.decode(Data(json.utf8), file: "fleet.json")
    }
    let fleet = try decode(#"{"dropLinkOnReads": 1, "dropLinkAfterWrites": 2, "rebootAtRequest": 3}"#)
    #expect(
      fleet.devices[0].kbeacon?.faults == KBeaconFaults(dropLinkOnReads: 1, dropLinkAfterWrites: 2, rebootAtRequest: 3))
    for (bad, path) in [
      (#"{"dropLinkOnReads": 101}"#, "dropLinkOnReads"), (#"{"dropLinkAfterWrites": -1}"#, "dropLinkAfterWrites"),
      (#"{"rebootAtRequest": 0}"#, "rebootAtRequest"),
    ] {
      #expect(throws: JSONDiagnostic.self) { try decode(bad) }
      do { _ = try decode(bad) } catch let error as JSONDiagnostic {
        #expect(error.path.description == "$.devices[0].kbeacon.\(path)")
      }
    }
  }
}
