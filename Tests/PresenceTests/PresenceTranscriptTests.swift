import Foundation
import Presence
import Profiles
import Testing

/// The presence engine fed a timed transcript of sightings and clock ticks (an injected clock: every call
/// says what time it is), asserting the exact sequence of events — enter/exit, a narrowed enter, tag
/// sessions, health — with a schedule and trigger-once honoured.
@Suite(.timeLimit(.minutes(5))) struct PresenceTranscriptTests {
  static let a = "AA:00:00:00:00:0A", b = "AA:00:00:00:00:0B", c = "CC:00:00:00:00:0C"
  /// Monday 2 March 2026, 08:00:00 UTC.
  static let t0 = Date(timeIntervalSince1970: 1_772_438_400)

  static let events = #"""
    { "version": 1, "timeZone": "UTC",
      "defaults": { "exitTimeout": 10 },
      "health": { "silentMinutes": 1 },
      "tags": { "dock": { "timeout": 20 } },
      "events": [
        { "name": "arrive", "trigger": "enter" },
        { "name": "leave", "trigger": "exit" },
        { "name": "dock-open", "trigger": "enter", "tags": ["dock"] },
        { "name": "dock-close", "trigger": "exit", "tags": ["dock"] },
        { "name": "first-sight", "trigger": "enter", "devices": ["cc:00:00:00:00:0c"], "triggerOnce": true },
        { "name": "close", "trigger": "enter", "devices": ["AA:00:00:00:00:0A"], "minimumProximity": "near" },
        { "name": "battery", "trigger": "health", "health": ["battery"] },
        { "name": "silent", "trigger": "health", "health": ["silent"] },
        { "name": "fw", "trigger": "health", "health": ["firmware"] },
        { "name": "office-hours", "trigger": "enter", "devices": ["AA:00:00:00:00:0B"],
          "schedule": [{ "dailyStart": "09:00", "dailyEnd": "17:00", "weekdays": ["mon"] }] }
      ] }
    """#

  static func engine() throws -> PresenceEngine {
    let file = try EventFileDecoder.decode(Array(events.utf8), file: "events.json")
    let inventory = try Inventory.parse(
      Array("address,tags\n\(a),dock\n\(b),dock\n\(c),\n".utf8), file: "inventory.csv")
    return PresenceEngine(file: file, inventory: inventory)
  }

  static func seen(_ address: String, _ seconds: Double, rssi: Int, battery: Int? = nil, firmware: String? = nil)
    -> PresenceSighting
  {
    PresenceSighting(
      address: address, at: t0 + seconds, rssi: rssi, measuredPower: -59, batteryPercent: battery, firmware: firmware)
  }

  static func line(_ e: PresenceEvent) -> String {
    "\(Int(e.at.timeIntervalSince(t0))) \(e.name) \(e.kind.rawValue) \(e.device?.address ?? "tag:" + (e.tag ?? "?"))"
  }

  @Test func theExactEventSequence() throws {
    var engine = try Self.engine()
    var out: [PresenceEvent] = []
    out += engine.observe([Self.seen(Self.a, 0, rssi: -70)])  // 3.5 m: far
    out += engine.observe([Self.seen(Self.c, 1, rssi: -60, battery: 50, firmware: "5.12")])
    out += engine.observe([Self.seen(Self.a, 2, rssi: -45)])  // smoothed −62.5 dBm: 1.5 m, near
    out += engine.observe([Self.seen(Self.b, 3, rssi: -60)])  // 08:00: outside office hours
    out += engine.observe([Self.seen(Self.c, 5, rssi: -60, battery: 15)])
    out += engine.tick(at: Self.t0 + 12)
    out += engine.tick(at: Self.t0 + 15)
    out += engine.tick(at: Self.t0 + 23)
    out += engine.observe([Self.seen(Self.c, 30, rssi: -60, firmware: "5.14")])  // trigger-once: no first-sight
    out += engine.tick(at: Self.t0 + 100)
    out += engine.observe([Self.seen(Self.b, 5400, rssi: -60)])  // 09:30 on a Monday
    #expect(
      out.map(Self.line) == [
        "0 arrive enter AA:00:00:00:00:0A",
        "0 dock-open session-open tag:dock",
        "1 arrive enter CC:00:00:00:00:0C",
        "1 first-sight enter CC:00:00:00:00:0C",
        "2 close enter AA:00:00:00:00:0A",
        "3 arrive enter AA:00:00:00:00:0B",
        "5 battery battery-low CC:00:00:00:00:0C",
        "12 leave exit AA:00:00:00:00:0A",
        "15 leave exit AA:00:00:00:00:0B",
        "15 leave exit CC:00:00:00:00:0C",
        "23 dock-close session-close tag:dock",
        "30 arrive enter CC:00:00:00:00:0C",
        "30 fw firmware-changed CC:00:00:00:00:0C",
        "100 silent silent AA:00:00:00:00:0A",
        "100 silent silent AA:00:00:00:00:0B",
        "100 leave exit CC:00:00:00:00:0C",
        "100 silent silent CC:00:00:00:00:0C",
        "5400 arrive enter AA:00:00:00:00:0B",
        "5400 office-hours enter AA:00:00:00:00:0B",
        "5400 dock-open session-open tag:dock",
      ])
    #expect(out.map(\.sequence) == Array(1...out.count))
    let close = try #require(out.first { $0.name == "dock-close" })
    #expect(close.session == "dock@2026-03-02T08:00:00.000Z" && close.tagDevices == [Self.a, Self.b])
    #expect(out.last?.session == "dock@2026-03-02T09:30:00.000Z")
    let fw = try #require(out.first { $0.name == "fw" })
    #expect(fw.previous == "5.12" && fw.device?.firmware == "5.14" && fw.device?.batteryPercent == 15)
  }

  @Test func aDeviceNotInTheInventoryIsNotTracked() throws {
    var engine = try Self.engine()
    #expect(engine.observe([Self.seen("DD:00:00:00:00:01", 0, rssi: -50)]).isEmpty)
  }

  /// A sighting after the exit timeout with no tick in between: the exit comes first, then the new enter.
  @Test func aLateSightingExitsBeforeItReenters() throws {
    var engine = try Self.engine()
    _ = engine.observe([Self.seen(Self.c, 0, rssi: -60)])
    let out = engine.observe([Self.seen(Self.c, 11, rssi: -60)])
    #expect(out.map(Self.line) == ["11 leave exit CC:00:00:00:00:0C", "11 arrive enter CC:00:00:00:00:0C"])
  }

  /// A controller that reports no RSSI (127, as BlueZ's btvirt): the device still enters and exits, its
  /// proximity unknown.
  @Test func aDeviceWithNoRSSIEntersWithUnknownProximity() throws {
    var engine = try Self.engine()
    var out = engine.observe([PresenceSighting(address: Self.c, at: Self.t0, rssi: nil)])
    out += engine.tick(at: Self.t0 + 10)
    #expect(
      out.map(Self.line) == [
        "0 arrive enter CC:00:00:00:00:0C", "0 first-sight enter CC:00:00:00:00:0C", "10 leave exit CC:00:00:00:00:0C",
      ])
    #expect(out[0].device?.proximity == .unknown && out[0].device?.smoothedRSSI == nil)
  }

  /// Proximity changes while present, the enter threshold of the inventory, and a cooldown.
  @Test func proximityEnterThresholdAndCooldown() throws {
    let file = try EventFileDecoder.decode(
      Array(
        #"""
        { "version": 1, "timeZone": "UTC", "defaults": { "exitTimeout": 5 },
          "events": [ { "name": "in", "trigger": "enter", "cooldown": 60 },
                      { "name": "near", "trigger": "proximity", "minimumProximity": "near" },
                      { "name": "moved", "trigger": "proximity" } ] }
        """#.utf8), file: "e.json")
    let inventory = try Inventory.parse(Array("address,enterRSSI\n\(Self.a),-65\n".utf8), file: "i.csv")
    var engine = PresenceEngine(file: file, inventory: inventory)
    var out: [PresenceEvent] = []
    out += engine.observe([Self.seen(Self.a, 0, rssi: -80)])  // below −65: not present yet
    out += engine.observe([Self.seen(Self.a, 1, rssi: -40)])  // smoothed −68: still below
    out += engine.observe([Self.seen(Self.a, 2, rssi: -40)])  // −59.6: in, near
    out += engine.observe([Self.seen(Self.a, 3, rssi: -100)])  // −71.7: far (past the 3 m boundary, −68.5, by 3 dB)
    out += engine.observe([Self.seen(Self.a, 4, rssi: -30)])  // −59.2: near again (closer than −65.5)
    out += engine.tick(at: Self.t0 + 10)
    out += engine.observe([Self.seen(Self.a, 20, rssi: -40)])  // back within the cooldown: no "in"
    #expect(
      out.map(Self.line) == [
        "2 in enter AA:00:00:00:00:0A",
        "3 moved proximity AA:00:00:00:00:0A",
        "4 near proximity AA:00:00:00:00:0A",
        "4 moved proximity AA:00:00:00:00:0A",
      ])
    #expect(out[1].previous == "near" && out[1].device?.proximity == .far)
  }

  /// A device resting at the near/far boundary (3 m, −68.5 dBm at −59 measured power) changed class every
  /// few seconds on the smoothed RSSI's jitter: with the 3 dB hysteresis it stays in one class, and a
  /// `minimumRSSI` enter/exit pair at its level fires one enter and no exit while it is heard.
  @Test func aDeviceAtAClassBoundaryDoesNotFlap() throws {
    let file = try EventFileDecoder.decode(
      Array(
        #"""
        { "version": 1, "timeZone": "UTC", "defaults": { "exitTimeout": 30 },
          "events": [ { "name": "moved", "trigger": "proximity" },
                      { "name": "in", "trigger": "enter", "minimumRSSI": -69 },
                      { "name": "out", "trigger": "exit", "minimumRSSI": -69 } ] }
        """#.utf8), file: "e.json")
    var engine = PresenceEngine(file: file, inventory: nil)
    let readings = [-66] + (0..<40).map { $0 % 2 == 0 ? -73 : -64 }
    var out: [PresenceEvent] = []
    var smoother = RSSISmoother()
    var rawClasses: [Proximity] = []
    for (i, rssi) in readings.enumerated() {
      out += engine.observe([Self.seen(Self.a, Double(i), rssi: rssi)])
      smoother.add(rssi)
      rawClasses.append(ProximityClassifier.classify(rssi: smoother.value, measuredPower: -59))
    }
    // The series does sit on the boundary: classified without hysteresis it changes class again and again.
    #expect(zip(rawClasses, rawClasses.dropFirst()).filter { $0 != $1 }.count >= 10)
    #expect(out.map(Self.line) == ["0 in enter AA:00:00:00:00:0A"])
  }

  @Test func hysteresisMovesAClassOnlyPastTheBoundaryByThreeDecibels() {
    let c = { (rssi: Double, previous: Proximity) in
      ProximityClassifier.classify(rssi: rssi, measuredPower: -59, previous: previous)
    }
    #expect(c(-69.5, .near) == .near && c(-71.6, .near) == .far)
    #expect(c(-67.5, .far) == .far && c(-65.4, .far) == .near)
    #expect(c(-40, .far) == .immediate && c(-80, .immediate) == .far)
    #expect(c(-67.5, .unknown) == .near)
  }
}
