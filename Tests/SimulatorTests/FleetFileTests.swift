import BeaconCore
import Foundation
import JSON
import Testing

@testable import Simulator

/// The fleet file format: the sample fixture, round trips, and errors that name the JSON path.
@Suite(.timeLimit(.minutes(3))) struct FleetFileTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "Fixtures/sample-fleet.json"
  ).path

  @Test func sampleFileLoads() throws {
    let fleet = try SimulatedFleet.load(path: Self.fixture)
    #expect(fleet.version == 1 && fleet.devices.count == 4)
    let pro = fleet.devices[0]
    #expect(pro.kind == .kbeaconPro && pro.name == "KBPro_Lobby" && pro.connectable && pro.intervalMs == 500)
    #expect(pro.rssi == RSSIProfile(mean: -62, spread: 8, seed: 7))
    #expect(pro.iBeacon?.major == 100 && pro.iBeacon?.measuredPower == -59)
    #expect(pro.sensor?.acceleration == [0, -3, 1002] && pro.sensor?.carrier == .eddystone)
    #expect(pro.system?.firmware == "5.12")
    #expect(fleet.devices[1].sensor?.carrier == .manufacturer && fleet.devices[1].iBeacon?.measuredPower == -62)
    let plain = fleet.devices[2]
    #expect(plain.addressType == .random && !plain.connectable && plain.rssi == RSSIProfile())
    #expect(fleet.devices[3].eddystoneUID?.namespace.description == "EDD1EBEAC04E5DEFA017")
    #expect(fleet.devices[3].eddystoneTLM?.uptimeSeconds == 100)
  }

  @Test func demoFleetRoundTripsThroughTheFileFormat() throws {
    let data = try DemoFleet.fleet.encoded()
    #expect(try SimulatedFleet.decode(data) == DemoFleet.fleet)
    #expect(DemoFleet.fleet.devices.count >= 20)
    #expect(Set(DemoFleet.fleet.devices.map(\.address)).count == DemoFleet.fleet.devices.count)
  }

  static func error(_ json: String) -> JSONDiagnostic? {
    do {
      _ = try SimulatedFleet.decode(Data(json.utf8), file: "fleet.json")
      return nil
    } catch {
      return error
    }
  }

  static let iBeaconDevice =
    #"{"address":"AC:23:3F:00:00:01","kind":"iBeacon","iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2}}"#

  @Test func unknownKeysAreErrorsWithTheirPath() throws {
    let json =
      #"{"version":1,"devices":["# + Self.iBeaconDevice + ","
      + #"{"address":"AC:23:3F:00:00:02","kind":"iBeacon","iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","majr":1,"minor":2}}]}"#
    let error = try #require(Self.error(json))
    #expect(error.path.description == "$.devices[1].iBeacon.majr")
    #expect(
      error.description
        == #"fleet.json:1:257: $.devices[1].iBeacon.majr: unknown key "majr" — did you mean "major"? "#
        + "(allowed: uuid, major, minor, measuredPower)")
    let top = try #require(Self.error(#"{"version":1,"devices":[],"extra":true}"#))
    #expect(top.path.description == "$.extra")
  }

  @Test func badValuesNameTheirPath() throws {
    let cases: [(String, String, String)] = [
      (#"{"version":2,"devices":[]}"#, "version", "unsupported version 2"),
      (#"{"version":1}"#, "devices", "missing required key"),
      (
        #"{"version":1,"devices":[{"address":"nope","kind":"iBeacon"}]}"#, "devices[0].address",
        "not a Bluetooth address"
      ),
      (
        #"{"version":1,"devices":[{"address":"AC:23:3F:00:00:01","kind":"toaster"}]}"#, "devices[0].kind",
        "'toaster' is not a device kind"
      ),
      (
        #"{"version":1,"devices":[{"address":"AC:23:3F:00:00:01","kind":"eddystone"}]}"#, "devices[0].kind",
        "advertises nothing"
      ),
      (
        #"{"version":1,"devices":[{"address":"AC:23:3F:00:00:01","kind":"eddystone","eddystoneURL":{"url":"https://www.averyveryverylongexample.com/"}}]}"#,
        "devices[0].eddystoneURL.url", "at most 17"
      ),
      (
        #"{"version":1,"devices":[{"address":"AC:23:3F:00:00:01","kind":"iBeacon","intervalMs":5,"iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2}}]}"#,
        "devices[0].intervalMs", "outside 20…10240"
      ),
      (
        #"{"version":1,"devices":[{"address":"AC:23:3F:00:00:01","kind":"iBeacon","iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":70000,"minor":2}}]}"#,
        "devices[0].iBeacon.major", "70000"
      ),
      (
        #"{"version":1,"devices":[{"address":"AC:23:3F:00:00:01","kind":"kbeaconPro","system":{"model":1,"batteryPercent":50,"firmware":"five"}}]}"#,
        "devices[0].system.firmware", "not major.minor"
      ),
      (
        #"{"version":1,"devices":["# + Self.iBeaconDevice + "," + Self.iBeaconDevice + "]}", "devices[1].address",
        "duplicate address AC:23:3F:00:00:01"
      ),
    ]
    for (json, path, message) in cases {
      let error = try #require(Self.error(json), "\(json) was accepted")
      #expect(error.path.description == "$." + path, "\(error)")
      #expect(error.message.contains(message), "\(error)")
    }
  }

  @Test func theAdapterSectionSetsTheSimulatedAdaptersLinks() throws {
    let fleet = try SimulatedFleet.decode(Data(#"{"version":1,"devices":[],"adapter":{"links":16}}"#.utf8))
    #expect(SimulatedCentral.withKBeacons(fleet: fleet, pace: .unpaced).central.gattLinks.capacity.limit == 16)
    let plain = try SimulatedFleet.decode(Data(#"{"version":1,"devices":[]}"#.utf8))
    #expect(SimulatedCentral.withKBeacons(fleet: plain, pace: .unpaced).central.gattLinks.capacity.limit == 5)
    let zero = try #require(Self.error(#"{"version":1,"devices":[],"adapter":{"links":0}}"#))
    #expect(zero.path.description == "$.adapter.links" && zero.description.contains("0 is outside 1…32"), "\(zero)")
  }

  /// The one error shape of every file the tool reads (issue "one JSON module"): a misspelt key names the
  /// file, line and column, the JSON path and the closest known key; broken JSON names the place it broke.
  @Test func aMisspeltKeyAndBrokenJSONSayWhereAndSuggest() throws {
    let text = """
      {
        "version": 1,
        "devices": [
          { "adress": "AC:23:3F:00:00:01", "kind": "iBeacon" }
        ]
      }
      """
    let misspelt = try #require(Self.error(text))
    #expect(
      misspelt.description.hasPrefix(
        #"fleet.json:4:7: $.devices[0].adress: unknown key "adress" — did you mean "address"? (allowed: "#),
      "\(misspelt)")
    let broken = try #require(Self.error("{\n  \"version\": 1,\n  \"devices\": [,]\n}"))
    #expect(broken.description.hasPrefix("fleet.json:3:15: $: not valid JSON: "), "\(broken)")
  }

  @Test func unreadableAndNonJSONFiles() throws {
    let missing = try #require(Self.loadError("/nonexistent/fleet.json"))
    #expect(missing.path == .root && missing.description.hasPrefix("/nonexistent/fleet.json: cannot read the file"))
    let garbage = try #require(Self.error("{not json"))
    #expect(garbage.path == .root && garbage.message.hasPrefix("not valid JSON"), "\(garbage)")
  }

  static func loadError(_ path: String) -> JSONDiagnostic? {
    do {
      _ = try SimulatedFleet.load(path: path)
      return nil
    } catch {
      return error
    }
  }
}
