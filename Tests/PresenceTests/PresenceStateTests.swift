import Foundation
import Presence
import Profiles
import Testing

/// The engine's state across a restart: a restarted monitor re-fired every present device's
/// `enter`, every tag's `session-open`, `battery-low` and trigger-once events, and a device that left while
/// it was down never got its `exit`.
@Suite(.timeLimit(.minutes(2))) struct PresenceStateTests {
  typealias T = PresenceTranscriptTests
  static let t0 = T.t0

  @Test func aRestoredEngineDoesNotRefireAndExitsWhatLeftMeanwhile() throws {
    var first = try T.engine()
    var out = first.observe([
      T.seen(T.a, 0, rssi: -50), T.seen(T.b, 1, rssi: -60), T.seen(T.c, 2, rssi: -60, battery: 10),
    ])
    #expect(
      out.map(T.line) == [
        "0 arrive enter AA:00:00:00:00:0A", "0 close enter AA:00:00:00:00:0A", "0 dock-open session-open tag:dock",
        "1 arrive enter AA:00:00:00:00:0B",
        "2 arrive enter CC:00:00:00:00:0C", "2 first-sight enter CC:00:00:00:00:0C",
        "2 battery battery-low CC:00:00:00:00:0C",
      ])
    // Kept as JSON (as the monitor keeps it) and read back by a new engine.
    let kept = try JSONDecoder().decode(PresenceState.self, from: JSONEncoder().encode(first.state))
    #expect(kept == first.state)
    var second = try T.engine()
    second.restore(kept)
    #expect(second.state == first.state)

    // 8 s later A and C are heard again, B is not: no enter, no session-open, no battery-low, no first-sight.
    out = second.observe([T.seen(T.a, 8, rssi: -50), T.seen(T.c, 8, rssi: -60, battery: 10)])
    #expect(out.isEmpty, "\(out.map(T.line))")
    // B was last heard at 1 s (exitTimeout 10): it exits at the first tick past 11 s; the dock stays open (A).
    out = second.tick(at: Self.t0 + 12)
    #expect(out.map(T.line) == ["12 leave exit AA:00:00:00:00:0B"])
    // Trigger-once holds after C exits and comes back.
    out = second.tick(at: Self.t0 + 30) + second.observe([T.seen(T.c, 31, rssi: -60)])
    #expect(
      out.map(T.line) == [
        "30 leave exit AA:00:00:00:00:0A", "30 leave exit CC:00:00:00:00:0C", "30 dock-close session-close tag:dock",
        "31 arrive enter CC:00:00:00:00:0C",
      ])
    let close = try #require(out.first { $0.name == "dock-close" })
    #expect(close.session == "dock@2026-03-02T08:00:00.000Z" && close.tagDevices == [T.a, T.b])
  }

  /// A device present when the monitor stopped and gone by the time it starts again gets its `exit` at the
  /// first tick, with the last state it was heard in.
  @Test func aDeviceThatLeftWhileStoppedExitsAtTheFirstTick() throws {
    var first = try T.engine()
    _ = first.observe([T.seen(T.c, 0, rssi: -60)])
    var second = try T.engine()
    second.restore(first.state)
    let out = second.tick(at: Self.t0 + 3600)
    #expect(out.map(T.line) == ["3600 leave exit CC:00:00:00:00:0C", "3600 silent silent CC:00:00:00:00:0C"])
    #expect(out[0].device?.lastSeen == Self.t0)
  }

  /// An inventory device the registry last saw before the start and not heard since is reported `silent`
  /// once the threshold has passed since the registry's time, without an `exit`; one heard again enters.
  @Test func anInventoryDeviceLastSeenInTheRegistryGoesSilent() throws {
    var engine = try T.engine()
    engine.remember(
      lastSeen: LastSeen.index([
        (T.b, [], Self.t0 - 50), (T.c, [], Self.t0 - 30), ("DD:00:00:00:00:01", [], Self.t0 - 50),
      ]))
    var out = engine.tick(at: Self.t0 + 10)
    out += engine.observe([T.seen(T.c, 20, rssi: -60)])
    out += engine.tick(at: Self.t0 + 40)
    #expect(
      out.map(T.line) == [
        "10 silent silent AA:00:00:00:00:0B",
        "20 arrive enter CC:00:00:00:00:0C", "20 first-sight enter CC:00:00:00:00:0C",
        "40 leave exit CC:00:00:00:00:0C",
      ])
    #expect(out[0].silentSeconds == 60)
  }

  /// An inventory row naming a beacon by iBeacon identity, which the registry saw another gateway (or `scan`)
  /// hear at an address this monitor has never heard, goes `silent` from the registry's time, under its
  /// identity, with that address and time; the latest of the identity's addresses counts (it rotates). An
  /// identity nobody names is not tracked, though the registry knows it.
  @Test func anIdentityRowLastSeenInTheRegistryGoesSilentFromThatTime() throws {
    let file = try EventFileDecoder.decode(Array(T.events.utf8), file: "events.json")
    let identity = BeaconIdentityTests.ibeacon
    let stranger = "ibeacon:E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:9:9"
    let inventory = try Inventory.parse(Array("address,tags\n\(identity),\n".utf8), file: "i.csv", identities: true)
    var engine = PresenceEngine(file: file, inventory: inventory)
    let index = LastSeen.index([
      ("C0:00:00:00:00:01", [identity], Self.t0 - 90), ("C0:00:00:00:00:02", [identity, stranger], Self.t0 - 40),
      ("C0:00:00:00:00:03", [], Self.t0 - 10),
    ])
    #expect(index[identity] == LastSeen(address: "C0:00:00:00:00:02", at: Self.t0 - 40))
    engine.remember(lastSeen: index)
    engine.watch(since: Self.t0)
    #expect(engine.tick(at: Self.t0 + 19).isEmpty)
    let out = engine.tick(at: Self.t0 + 20)
    #expect(out.map(T.line) == ["20 silent silent C0:00:00:00:00:02"])
    #expect(out.first?.device?.identity == identity && out.first?.device?.lastSeen == Self.t0 - 40)
    #expect(out.first?.silentSeconds == 60)
    #expect(engine.state.devices.map(\.address) == [identity], "only the named identity is tracked")
  }

  /// Inventory rows nothing has heard — one by iBeacon identity that no registry device ever showed, one by
  /// an address the registry does not know either — are watched for from the start: each is
  /// reported `silent` once the threshold has passed, without `lastSeen`, kept across a restart (no second
  /// `silent`, the clock not restarted), and the identity enters when heard at last.
  @Test func anInventoryRowNeverHeardByIdentityOrAddressGoesSilent() throws {
    let file = try EventFileDecoder.decode(Array(T.events.utf8), file: "events.json")
    let identity = BeaconIdentityTests.ibeacon
    let csv = "address,tags\n\(identity),\nDD:00:00:00:00:0D,\n\(T.a),\n"
    let inventory = try Inventory.parse(Array(csv.utf8), file: "i.csv", identities: true)
    var engine = PresenceEngine(file: file, inventory: inventory)
    engine.remember(lastSeen: LastSeen.index([(T.a, [], Self.t0 - 50)]))
    engine.watch(since: Self.t0)
    var out = engine.tick(at: Self.t0 + 59)
    #expect(out.map(T.line) == ["59 silent silent AA:00:00:00:00:0A"])
    out = engine.tick(at: Self.t0 + 60)
    #expect(out.map(T.line) == ["60 silent silent DD:00:00:00:00:0D", "60 silent silent \(identity)"])
    #expect(out.map(\.device?.identity) == [nil, identity])
    #expect(out.allSatisfy { $0.device?.lastSeen == nil && $0.silentSeconds == 60 })
    #expect(!PresenceEventJSON.text(out[1], id: "x").contains("lastSeen"))
    // In the kept state both are listed as watched since the start, not as heard.
    let kept = try JSONDecoder().decode(PresenceState.self, from: JSONEncoder().encode(engine.state))
    let watched = kept.devices.filter { $0.watchedSince != nil }
    #expect(watched.map(\.address) == ["DD:00:00:00:00:0D", identity])
    #expect(watched.allSatisfy { $0.lastHeard == nil && $0.silentReported && $0.watchedSince == Self.t0 })
    // A restart an hour later: nothing fires again; the identity heard at last enters under its address.
    var second = PresenceEngine(file: file, inventory: inventory)
    second.restore(kept)
    second.watch(since: Self.t0 + 3600)
    out = second.tick(at: Self.t0 + 7200)
    out += second.observe([
      PresenceSighting(address: "C0:00:00:00:00:01", at: Self.t0 + 7201, rssi: -60, identities: [identity])
    ])
    #expect(out.map(T.line) == ["7201 arrive enter C0:00:00:00:00:01"])
    #expect(out.first?.device?.identity == identity)
  }
}
