import Foundation
import KBeacon
import Presence
import Testing

/// The Lighthouse seed's events carry an operator message and payload; ours had a fixed body. A definition's
/// `message` and `payload` now reach every event it fires, in the webhook body and the JSON line, and bad
/// ones are refused with their path and the limit.
@Suite(.timeLimit(.minutes(1))) struct EventOperatorFieldsTests {
  static let t0 = Date(timeIntervalSince1970: 1_772_438_400)

  @Test func aDefinitionsMessageAndPayloadAreInEachEventItFires() throws {
    let file = try EventFileDecoder.decode(
      Array(
        #"""
        { "version": 1, "events": [
          { "name": "arrive", "trigger": "enter", "message": "Pallet at dock 4",
            "payload": { "site": 7, "gate": "north", "weights": [1.5, 2], "ack": false, "note": null } },
          { "name": "plain", "trigger": "enter" } ] }
        """#.utf8), file: "events.json")
    var engine = PresenceEngine(file: file, inventory: nil)
    let events = engine.observe([
      PresenceSighting(address: "AA:00:00:00:00:0A", at: Self.t0, rssi: -60, measuredPower: -59)
    ])
    #expect(events.map(\.name) == ["arrive", "plain"])
    let body = PresenceEventJSON.text(events[0], id: "r-1")
    #expect(
      body.contains(
        #","message":"Pallet at dock 4","payload":{"site":7,"gate":"north","weights":[1.5,2],"ack":false,"note":null}}"#
      ), "\(body)")
    let plain = PresenceEventJSON.text(events[1], id: "r-2")
    #expect(!plain.contains("message") && !plain.contains("payload"))
  }

  @Test func aBadMessageOrPayloadIsRefusedWithItsPathAndLimit() {
    let deep = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
    let long = String(repeating: "x", count: 1_001)
    let big =
      "[" + Array(repeating: "\"" + String(repeating: "y", count: 100) + "\"", count: 200).joined(separator: ",") + "]"
    let text = #"""
      { "version": 1, "events": [
        { "name": "a", "trigger": "enter", "message": "\#(long)" },
        { "name": "b", "trigger": "enter", "message": "bell\u0007" },
        { "name": "c", "trigger": "enter", "payload": \#(deep) },
        { "name": "d", "trigger": "enter", "payload": \#(big) },
        { "name": "e", "trigger": "enter", "payload": {"n": 1e400} } ] }
      """#
    do {
      _ = try EventFileDecoder.decode(Array(text.utf8), file: "events.json")
      Issue.record("accepted")
    } catch {
      let said = error.description
      #expect(
        said.contains("$.events[0].message") && said.contains("1001 bytes long")
          && said.contains("at most 1000 UTF-8 bytes"), "\(said)")
      #expect(said.contains("$.events[1].message") && said.contains("control character"), "\(said)")
      #expect(said.contains("$.events[2].payload") && said.contains("deeper than 16 levels"), "\(said)")
      #expect(said.contains("$.events[3].payload") && said.contains("at most 16384 bytes"), "\(said)")
      #expect(said.contains("$.events[4].payload") && said.contains("out of range"), "\(said)")
    }
  }
}
