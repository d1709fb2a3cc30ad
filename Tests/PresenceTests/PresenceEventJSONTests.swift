import Foundation
import Presence
import Testing

/// The webhook body, byte for byte.
@Suite(.timeLimit(.minutes(2))) struct PresenceEventJSONTests {
  @Test func aDeviceEventAndATagEvent() {
    let at = Date(timeIntervalSince1970: 1_772_438_400.25)
    var event = PresenceEvent(sequence: 7, name: "left", kind: .exit, at: at, actions: [.jsonl])
    event.device = PresenceEvent.Device(
      address: "AA:00:00:00:00:0A", name: "KBPro_1", tags: ["dock"], rssi: -71, smoothedRSSI: -68.7234,
      proximity: .far, batteryPercent: 80, batteryMillivolts: nil, firmware: "5.12", lastSeen: at - 30)
    #expect(
      PresenceEventJSON.text(event, id: "r1-7")
        == #"{"schema":"beacon-provision/presence-event/v1","id":"r1-7","event":"left","kind":"exit","trigger":"exit","at":"2026-03-02T08:00:00.250Z","device":{"address":"AA:00:00:00:00:0A","name":"KBPro_1","tags":["dock"],"rssi":-71,"smoothedRSSI":-68.7,"proximity":"far","batteryPercent":80,"firmware":"5.12","lastSeen":"2026-03-02T07:59:30.250Z"}}"#
    )
    var tag = PresenceEvent(sequence: 8, name: "dock", kind: .sessionClose, at: at, actions: [])
    tag.tag = "dock"
    tag.session = "dock@2026-03-02T07:00:00.000Z"
    tag.tagDevices = ["AA:00:00:00:00:0A"]
    #expect(tag.orderKey == "tag:dock")
    #expect(
      PresenceEventJSON.text(tag, id: "r1-8")
        == #"{"schema":"beacon-provision/presence-event/v1","id":"r1-8","event":"dock","kind":"session-close","trigger":"exit","at":"2026-03-02T08:00:00.250Z","tag":{"name":"dock","session":"dock@2026-03-02T07:00:00.000Z","devices":["AA:00:00:00:00:0A"]}}"#
    )
  }

  /// `EventTime` writes times by arithmetic now: the same text as Foundation's ISO 8601 formatter (UTC,
  /// milliseconds) over leap years, century years, before 1970 and sub-millisecond fractions.
  @Test func eventTimesMatchFoundationsFormatter() {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var generator = SystemRandomNumberGenerator()
    let fixed: [TimeInterval] = [
      0, 1_772_438_400.25, 951_782_400, 951_868_799.999, 4_107_542_400, -86_400.5, 1_709_164_800.0004,
    ]
    let dates =
      fixed
      + (0..<2000).map { _ in
        TimeInterval(Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)) / 1000
      }
    for seconds in dates {
      let date = Date(timeIntervalSince1970: seconds)
      #expect(EventTime.text(date) == formatter.string(from: date), "\(seconds)")
    }
  }
}
