import Foundation
import JSON
import Profiles

extension PresenceEngine {
  /// The devices present now (Lighthouse's `beaconsInRange`), by key, as an event would show them.
  public var presentDevices: [PresenceEvent.Device] {
    devices.values.filter(\.present).sorted { $0.key < $1.key }.map(\.snapshot)
  }

  /// How many of the tracked devices have been heard (this run, or in the state it was restored from).
  public var heardCount: Int { devices.values.count { $0.lastHeard != nil } }

  /// The open tag sessions, by tag: the session's id.
  public var openSessions: [String: String] {
    tags.compactMapValues(\.id)
  }

  /// The same presence under a new events file and inventory (a monitor's SIGHUP): the state is carried over
  /// as across a restart (`restore`: present devices stay present, no second `enter` or `session-open`),
  /// and event numbering continues, so idempotency keys (`RUN-SEQUENCE`) stay unique within the run.
  public func reloaded(file: EventFile, inventory: Inventory?) -> PresenceEngine {
    var next = PresenceEngine(file: file, inventory: inventory)
    next.restore(state)
    next.sequence = sequence
    return next
  }
}

extension PresenceScan {
  /// Swaps in a new events file and inventory, keeping the presence state and the open discovery window.
  public mutating func reload(file: EventFile, inventory: Inventory?) {
    engine = engine.reloaded(file: file, inventory: inventory)
  }
}

extension PresenceEventJSON {
  public static let presenceSchema = "beacon-provision/presence/v1"

  /// Who is here now (the monitor's `/presence`, Lighthouse's `beaconsInRange`): `devices`, the present
  /// devices as events show them, and `tags`, per tag with present devices or an open session, its session
  /// and the keys of its present devices. Keys in a fixed order, devices and tags sorted.
  public static func presence(_ engine: PresenceEngine, at: Date) -> String {
    let present = engine.presentDevices
    var byTag: [String: [String]] = [:]
    for device in present {
      for tag in device.tags { byTag[tag, default: []].append(device.identity ?? device.address) }
    }
    let sessions = engine.openSessions
    var object = JSONObject()
    object["schema"] = .string(presenceSchema)
    object["at"] = .string(EventTime.text(at))
    object["devices"] = .array(present.map { .object(device($0)) })
    object["tags"] = .array(
      Set(byTag.keys).union(sessions.keys).sorted().map { tag in
        var t = JSONObject()
        t["name"] = .string(tag)
        if let session = sessions[tag] { t["session"] = .string(session) }
        t["devices"] = .array((byTag[tag] ?? []).map(JSONValue.string))
        return .object(t)
      })
    return JSONWriter.text(.object(object))
  }
}
