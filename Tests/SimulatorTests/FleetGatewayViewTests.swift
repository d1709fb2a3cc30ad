import BeaconCore
import Foundation
import JSON
import Testing

@testable import Simulator

/// A fleet file's `gateways` section: each gateway's view of a simulated site, checked with
/// JSON paths, and the view `--gateway` serves.
@Suite(.timeLimit(.minutes(5))) struct FleetGatewayViewTests {
  static let a = "AC:23:3F:00:00:01", b = "AC:23:3F:00:00:02"
  static func device(_ address: String) -> String {
    #"{"address":"\#(address)","kind":"iBeacon","rssi":{"mean":-40,"spread":9},"iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2}}"#
  }
  static func fleet(_ gateways: String) -> String {
    #"{"version":1,"devices":[\#(device(a)),\#(device(b))],"gateways":\#(gateways)}"#
  }

  @Test func eachGatewayServesTheDevicesItHearsAtItsFixedRSSI() throws {
    let fleet = try SimulatedFleet.decode(
      Data(Self.fleet(#"{"east":{"\#(Self.a)":-58},"west":{"\#(Self.a)":-80,"\#(Self.b)":-61}}"#).utf8))
    let east = try fleet.view(for: "east")
    #expect(east.devices.map(\.address.description) == [Self.a])
    #expect(east.devices[0].rssi.mean == -58 && east.devices[0].rssi.spread == 0)
    let west = try fleet.view(for: "west")
    #expect(west.devices.map(\.rssi.mean) == [-80, -61])
    let error = #expect(throws: FleetGatewayError.self) { try fleet.view(for: "north") }
    #expect(error?.description == "the fleet file has no gateway north (its gateways: east, west)")
    // A fleet file without the section has no gateways to choose from.
    let plain = try SimulatedFleet.decode(Data(#"{"version":1,"devices":[\#(Self.device(Self.a))]}"#.utf8))
    #expect(plain.gateways == nil)
    #expect(throws: FleetGatewayError.self) { try plain.view(for: "east") }
  }

  @Test func anUnknownAddressOrAnRSSIOutOfRangeIsAnErrorWithItsPath() throws {
    for (gateways, path, message) in [
      (
        #"{"east":{"AC:23:3F:00:00:09":-58}}"#, #"$.gateways.east["AC:23:3F:00:00:09"]"#,
        "is not the address of a device in this fleet"
      ),
      (#"{"east":{"\#(Self.a)":-200}}"#, "$.gateways.east[\"\(Self.a)\"]", "-200 dBm is outside -127…20"),
    ] {
      do {
        _ = try SimulatedFleet.decode(Data(Self.fleet(gateways).utf8), file: "site.json")
        Issue.record("accepted \(gateways)")
      } catch {
        #expect(error.path.description == path, "\(error)")
        #expect(error.description.contains(message), "\(error)")
        #expect(error.description.hasPrefix("site.json:1:"), "\(error)")
      }
    }
  }
}
