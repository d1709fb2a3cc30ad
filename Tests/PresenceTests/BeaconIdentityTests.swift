import BeaconCore
import Foundation
import Presence
import Profiles
import Testing

/// Beacons named by iBeacon or Eddystone identity rather than address (many rotate their address): the text forms,
/// the monitor's inventory and events file accepting them (and apply/audit's inventory refusing them), and
/// the engine keeping a beacon that rotates its address as one device.
@Suite(.timeLimit(.minutes(2))) struct BeaconIdentityTests {
  static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
  static let ibeacon = "ibeacon:\(uuid):1:2"
  static let eddystone = "eddystone:EDD1EBEAC04E5DEFA017:0BDB87539B67"
  /// Monday 2 March 2026, 08:00:00 UTC.
  static let t0 = Date(timeIntervalSince1970: 1_772_438_400)

  @Test func textFormsAreReadCaseInsensitivelyAndCanonicalised() {
    #expect(BeaconIdentity("IBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:01:2")?.description == Self.ibeacon)
    #expect(BeaconIdentity("ibeacon:E2C56DB5DFFB48D2B060D0F5A71096E0:1:2")?.description == Self.ibeacon)
    #expect(BeaconIdentity("EDDYSTONE:edd1ebeac04e5defa017:0bdb87539b67")?.description == Self.eddystone)
    for bad in [
      "ibeacon:\(Self.uuid):1", "ibeacon:\(Self.uuid):65536:2", "ibeacon:\(Self.uuid):-1:2",
      "ibeacon:\(Self.uuid):1:2:3", "ibeacon:nope:1:2",
      "ibeacon:\(Self.uuid):1:", "eddystone:EDD1EBEAC04E5DEFA01:0BDB87539B67",
      "eddystone:EDD1EBEAC04E5DEFA017:0BDB87539B6G",
      "eddystone:EDD1EBEAC04E5DEFA017", "altbeacon:1:2", "AA:BB:CC:DD:EE:FF",
    ] {
      #expect(BeaconIdentity(bad) == nil, "\(bad)")
    }
  }

  @Test func framesShowTheirIdentitiesOnceEachInFrameOrder() {
    let ibeacon = BeaconFrame.iBeacon(
      IBeaconFrame(uuid: ProximityUUID(Self.uuid)!, major: 1, minor: 2, measuredPower: -59))
    let uid = BeaconFrame.eddystoneUID(
      EddystoneUIDFrame(
        txPowerAt0m: -20, namespace: Hex.decode("EDD1EBEAC04E5DEFA017")!, instance: Hex.decode("0BDB87539B67")!))
    #expect(BeaconIdentity.shown(by: [uid, ibeacon, uid]).map(\.description) == [Self.eddystone, Self.ibeacon])
    #expect(BeaconIdentity.shown(by: []).isEmpty)
  }

  @Test func theMonitorsInventoryAcceptsIdentitiesAndApplysRefusesThem() throws {
    let csv = "address,tags\nIBEACON:\(Self.uuid.lowercased()):1:2,dock\n\(Self.eddystone),\nDD:34:02:06:D0:6C,\n"
    let inventory = try Inventory.parse(Array(csv.utf8), file: "inv.csv", identities: true)
    #expect(inventory.rows.map(\.address) == [Self.ibeacon, Self.eddystone, "DD:34:02:06:D0:6C"])
    #expect(inventory.row(for: Self.ibeacon)?.tags == ["dock"])
    let keyed = #"{ "Eddystone:\#(Self.eddystone.dropFirst(10).lowercased())": { "room": "A", "tags": ["lab"] } }"#
    let fromJSON = try Inventory.parse(Array(keyed.utf8), file: "inv.json", identities: true)
    #expect(
      fromJSON.rows.map { "\($0.address) \($0.variables) \($0.tags)" } == [
        "\(Self.eddystone) [\"room\": \"A\"] [\"lab\"]"
      ])
    #expect(throws: ProfileDiagnostics.self) { try Inventory.parse(Array(csv.utf8), file: "inv.csv") }
    do {
      _ = try Inventory.parse(Array(csv.utf8), file: "inv.csv")
    } catch {
      #expect(
        error.all.map(\.description) == [
          #"inv.csv:2:1: $[0].address: "IBEACON:E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2" names a beacon by identity, which only `monitor --inventory` reads; this command connects by address (allowed: AA:BB:CC:DD:EE:FF)"#,
          #"inv.csv:3:1: $[1].address: "\#(Self.eddystone.uppercased())" names a beacon by identity, which only `monitor --inventory` reads; this command connects by address (allowed: AA:BB:CC:DD:EE:FF)"#,
        ])
    }
    let json =
      #"[ { "address": "ibeacon:\#(Self.uuid):99999:2" }, { "address": "\#(Self.ibeacon)" }, { "address": "IBEACON:\#(Self.uuid):1:2" } ]"#
    do {
      _ = try Inventory.parse(Array(json.utf8), file: "inv.json", identities: true)
      Issue.record("accepted")
    } catch {
      #expect(
        error.all.map(\.description) == [
          #"inv.json:1:3: $[0]: "ibeacon:\#(Self.uuid):99999:2" is not a beacon identity (allowed: \#(BeaconIdentity.allowed))"#,
          #"inv.json:1:141: $[1]: identity \#(Self.ibeacon) is listed twice (lines 1 and 1)"#,
        ])
    }
  }

  @Test func theEventsFileAcceptsIdentitiesAndNamesBadOnes() throws {
    let text = """
      { "version": 1, "events": [
        { "name": "a", "trigger": "enter", "devices": ["iBeacon:\(Self.uuid.lowercased()):1:2", "dd:34:02:06:d0:6c"] },
        { "name": "b", "trigger": "enter", "devices": ["eddystone:EDD1:0BDB87539B67", "ibeacon:x", "beacon-7"] } ] }
      """
    #expect {
      try EventFileDecoder.decode(Array(text.utf8), file: "ev.json")
    } throws: { error in
      let lines = (error as? ProfileDiagnostics)?.all.map(\.description) ?? []
      return lines == [
        #"ev.json:3:50: $.events[1].devices[0]: "eddystone:EDD1:0BDB87539B67" is not a beacon identity (allowed: \#(BeaconIdentity.allowed))"#,
        #"ev.json:3:81: $.events[1].devices[1]: "ibeacon:x" is not a beacon identity (allowed: \#(BeaconIdentity.allowed))"#,
        #"ev.json:3:94: $.events[1].devices[2]: "beacon-7" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF or \#(BeaconIdentity.allowed))"#,
      ]
    }
    let goodText =
      #"{ "version": 1, "events": [ { "name": "a", "trigger": "enter", "devices": ["iBeacon:\#(Self.uuid.lowercased()):1:2", "dd:34:02:06:d0:6c"] } ] }"#
    let good = try EventFileDecoder.decode(Array(goodText.utf8), file: "ev.json")
    #expect(good.definitions[0].devices == [Self.ibeacon, "DD:34:02:06:D0:6C"])
  }

  static let events = #"""
    { "version": 1, "defaults": { "exitTimeout": 10 },
      "events": [ { "name": "in", "trigger": "enter" }, { "name": "out", "trigger": "exit" },
                  { "name": "this-one", "trigger": "enter", "devices": ["\#(eddystone)"] } ] }
    """#

  static func address(_ n: Int) -> String { String(format: "C0:00:00:00:00:%02X", n) }

  /// A beacon showing the inventory's iBeacon identity from a new random address every 3 s for a minute:
  /// one enter, no exit while it is heard (exit timeout 10 s), one exit once it is silent; every event names the
  /// identity and the address last heard. An Eddystone beacon named only by an event is tracked the same.
  @Test func aRotatingAddressStaysOneDevice() throws {
    let file = try EventFileDecoder.decode(Array(Self.events.utf8), file: "events.json")
    let csv = "address,tags\n\(Self.ibeacon),\n\(Self.eddystone),\n"
    var engine = PresenceEngine(
      file: file, inventory: try Inventory.parse(Array(csv.utf8), file: "i.csv", identities: true))
    var out: [PresenceEvent] = []
    for step in 0...20 {
      let at = Self.t0 + Double(step * 3)
      out += engine.observe([
        PresenceSighting(address: Self.address(step), at: at, rssi: -60, identities: [Self.ibeacon.uppercased()]),
        PresenceSighting(address: Self.address(0x80 + step / 2), at: at, rssi: -60, identities: [Self.eddystone]),
        // Not in the inventory: neither its address nor its identity.
        PresenceSighting(
          address: Self.address(0x40 + step), at: at, rssi: -60, identities: ["ibeacon:\(Self.uuid):1:3"]),
      ])
    }
    out += engine.tick(at: Self.t0 + 100)
    let lines = out.map {
      "\(Int($0.at.timeIntervalSince(Self.t0))) \($0.name) \($0.device?.identity ?? "-") \($0.device?.address ?? "-")"
    }
    #expect(
      lines == [
        "0 in \(Self.ibeacon) C0:00:00:00:00:00",
        "0 in \(Self.eddystone) C0:00:00:00:00:80",
        "0 this-one \(Self.eddystone) C0:00:00:00:00:80",
        "100 out \(Self.eddystone) C0:00:00:00:00:8A",
        "100 out \(Self.ibeacon) C0:00:00:00:00:14",
      ])
    let json = PresenceEventJSON.text(out[0], id: "x")
    #expect(json.contains(#""address":"C0:00:00:00:00:00","identity":"\#(Self.ibeacon)""#))
    // Kept and restored across a restart: still one present device, under its identity, last address kept.
    var second = PresenceEngine(
      file: file, inventory: try Inventory.parse(Array(csv.utf8), file: "i.csv", identities: true))
    var kept = engine.state
    kept.devices = kept.devices.map {
      var d = $0
      d.present = true
      d.lastHeard = Self.t0 + 95
      return d
    }
    second.restore(kept)
    #expect(second.state.devices.map(\.lastAddress) == ["C0:00:00:00:00:8A", "C0:00:00:00:00:14"])
    let again = second.observe([
      PresenceSighting(address: Self.address(0x99), at: Self.t0 + 96, rssi: -60, identities: [Self.ibeacon])
    ])
    #expect(again.isEmpty)
    let exits = second.tick(at: Self.t0 + 120).map {
      "\($0.name) \($0.device?.identity ?? "-") \($0.device?.address ?? "-")"
    }
    #expect(exits == ["out \(Self.eddystone) C0:00:00:00:00:8A", "out \(Self.ibeacon) C0:00:00:00:00:99"])
  }

  /// Without an inventory or event naming an identity, devices are tracked by address as before: a rotation
  /// is an exit and an enter.
  @Test func unnamedIdentitiesAreNotUsed() throws {
    let file = try EventFileDecoder.decode(
      Array(
        #"{ "version": 1, "defaults": { "exitTimeout": 5 }, "events": [ { "name": "in", "trigger": "enter" } ] }"#.utf8),
      file: "e.json")
    var engine = PresenceEngine(file: file)
    var out: [PresenceEvent] = []
    for step in 0..<3 {
      out += engine.observe([
        PresenceSighting(address: Self.address(step), at: Self.t0 + Double(step), rssi: -60, identities: [Self.ibeacon])
      ])
    }
    #expect(out.map { $0.device?.address ?? "-" } == ["C0:00:00:00:00:00", "C0:00:00:00:00:01", "C0:00:00:00:00:02"])
    #expect(out.allSatisfy { $0.device?.identity == nil })
  }
}
