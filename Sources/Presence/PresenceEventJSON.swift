import Foundation
import JSON

/// The JSON of an event: the webhook body (schema `beacon-provision/presence-event/v1`), the `--jsonl`
/// line and the command action's `BEACON_EVENT`, all the same text. Keys in a fixed order, absent values
/// left out, times as `EventTime` text, smoothed RSSI rounded to 0.1 dB.
public enum PresenceEventJSON {
  public static let schema = "beacon-provision/presence-event/v1"

  /// `id` is the event's idempotency key (the spool's; also sent as the `Idempotency-Key` header).
  public static func value(_ event: PresenceEvent, id: String) -> JSONValue {
    var object = JSONObject()
    object["schema"] = .string(schema)
    object["id"] = .string(id)
    object["event"] = .string(event.name)
    object["kind"] = .string(event.kind.rawValue)
    object["trigger"] = .string(event.kind.trigger.rawValue)
    object["at"] = .string(EventTime.text(event.at))
    if let device = event.device { object["device"] = .object(Self.device(device)) }
    if let tag = event.tag {
      var t = JSONObject()
      t["name"] = .string(tag)
      if let session = event.session { t["session"] = .string(session) }
      t["devices"] = .array((event.tagDevices ?? []).map(JSONValue.string))
      object["tag"] = .object(t)
    }
    if let previous = event.previous { object["previous"] = .string(previous) }
    if let silent = event.silentSeconds { object["silentSeconds"] = .int(Int(silent.rounded(.down))) }
    if let message = event.message { object["message"] = .string(message) }
    if let payload = event.payload { object["payload"] = payload }
    return .object(object)
  }

  public static func text(_ event: PresenceEvent, id: String) -> String { JSONWriter.text(value(event, id: id)) }

  static func device(_ device: PresenceEvent.Device) -> JSONObject {
    var d = JSONObject()
    d["address"] = .string(device.address)
    if let identity = device.identity { d["identity"] = .string(identity) }
    if let name = device.name { d["name"] = .string(name) }
    if !device.tags.isEmpty { d["tags"] = .array(device.tags.map(JSONValue.string)) }
    if let rssi = device.rssi { d["rssi"] = .int(rssi) }
    if let smoothed = device.smoothedRSSI { d["smoothedRSSI"] = .double((smoothed * 10).rounded() / 10) }
    d["proximity"] = .string(device.proximity.rawValue)
    if let percent = device.batteryPercent { d["batteryPercent"] = .int(percent) }
    if let millivolts = device.batteryMillivolts { d["batteryMillivolts"] = .int(millivolts) }
    if let firmware = device.firmware { d["firmware"] = .string(firmware) }
    if let seen = device.lastSeen { d["lastSeen"] = .string(EventTime.text(seen)) }
    return d
  }
}
