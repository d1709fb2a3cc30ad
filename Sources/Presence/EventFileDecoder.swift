import BeaconCore
import Foundation
import JSON
import Profiles

/// Reads a `monitor --events` file, every problem reported at once with its file, line, column
/// and JSON path, like a profile:
///
/// ```json
/// { "version": 1, "timeZone": "Europe/Berlin",
///   "defaults": { "exitTimeout": 30, "enterRSSI": -90 },
///   "health": { "batteryPercent": 20, "batteryMillivolts": 2500, "silentMinutes": 10 },
///   "tags": { "dock": { "timeout": 120 } },
///   "events": [ { "name": "left-dock", "tags": ["dock"], "trigger": "exit", "triggerOnce": false,
///                 "devices": ["DD:34:02:06:D0:6C", "ibeacon:E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"],
///                 "minimumProximity": "near", "minimumRSSI": -80, "cooldown": 60, "health": ["battery"],
///                 "schedule": [ { "start": "2026-03-01", "end": "2026-12-31", "dailyStart": "08:00",
///                                 "dailyEnd": "18:00", "weekdays": ["mon", "tue", "wed", "thu", "fri"] } ],
///                 "message": "Dock door left open", "payload": { "site": 7, "severity": "warn" },
///                 "actions": [ { "type": "jsonl" }, { "type": "webhook", "url": "https://example.net/hook" },
///                              { "type": "command", "run": ["/usr/bin/logger", "-t", "beacons"] } ] } ] }
/// ```
///
/// [I] An event without `actions` gets the command line's (`--jsonl`, `--webhook`), which are also added to
/// every event that has some; one with none at all prints JSON lines.
public enum EventFileDecoder {
  static let topKeys = ["version", "timeZone", "defaults", "health", "tags", "events"]
  static let eventKeys = [
    "name", "devices", "tags", "trigger", "triggerOnce", "minimumProximity", "minimumRSSI", "cooldown", "health",
    "schedule", "actions", "message", "payload",
  ]

  public static func decode(_ bytes: [UInt8], file: String, extraActions: [EventAction] = []) throws(ProfileDiagnostics)
    -> EventFile
  {
    var reader = EventFileReader(file: file)
    let root: SourceJSON
    do { root = try JSONParser.parseWithPositions(bytes) } catch {
      throw ProfileDiagnostics(
        [
          JSONDiagnostic(
            file: file, position: error.position, path: .root, message: "not valid JSON: \(error.message)")
        ], subject: "the events file")
    }
    var result = EventFile(definitions: [])
    guard let top = reader.object(root, .root, keys: topKeys) else {
      throw ProfileDiagnostics(reader.problems, subject: "the events file")
    }
    if reader.int(top["version"], JSONPath.root.appending("version"), 1...1) == nil, top["version"] == nil {
      reader.problem(root, JSONPath.root.appending("version"), "missing", allowed: "1")
    }
    settings(top, into: &result.settings, &reader)
    let calendar = result.settings.calendar
    let path = JSONPath.root.appending("events")
    if case .array(let items)? = top["events"]?.kind {
      var names: Set<String> = []
      for (i, item) in items.enumerated() {
        if case .string(let name)? = item["name"]?.kind, !names.insert(name).inserted {
          reader.problem(
            item["name"], path.appending(i).appending("name"), "\"\(name.echoed)\" is used by an earlier event")
        }
        guard var definition = event(item, path.appending(i), calendar, &reader) else { continue }
        definition.actions += extraActions.filter { !definition.actions.contains($0) }
        if definition.actions.isEmpty { definition.actions = [.jsonl] }
        result.definitions.append(definition)
      }
    } else {
      reader.problem(top["events"] ?? root, path, top["events"] == nil ? "missing" : "expected an array of events")
    }
    if !reader.problems.isEmpty { throw ProfileDiagnostics(reader.problems, subject: "the events file") }
    return result
  }

  static func settings(
    _ top: [String: SourceJSON], into settings: inout MonitorSettings, _ reader: inout EventFileReader
  ) {
    let root = JSONPath.root
    if let name = reader.string(top["timeZone"], root.appending("timeZone")) {
      if let zone = TimeZone(identifier: name) {
        settings.timeZone = zone
      } else {
        reader.problem(
          top["timeZone"], root.appending("timeZone"), "\"\(name.echoed)\" is not a time zone",
          allowed: "an IANA name such as UTC or Europe/Berlin")
      }
    }
    if let json = top["defaults"],
      let d = reader.object(json, root.appending("defaults"), keys: ["exitTimeout", "enterRSSI"])
    {
      let p = root.appending("defaults")
      if let v = reader.number(d["exitTimeout"], p.appending("exitTimeout"), 1...86_400) { settings.exitTimeout = v }
      if let v = reader.int(d["enterRSSI"], p.appending("enterRSSI"), -127...20) { settings.enterRSSI = v }
    }
    if let json = top["health"],
      let h = reader.object(
        json, root.appending("health"), keys: ["batteryPercent", "batteryMillivolts", "silentMinutes"])
    {
      let p = root.appending("health")
      if let v = reader.int(h["batteryPercent"], p.appending("batteryPercent"), 0...100) {
        settings.lowBatteryPercent = v
      }
      if let v = reader.int(h["batteryMillivolts"], p.appending("batteryMillivolts"), 0...5000) {
        settings.lowBatteryMillivolts = v
      }
      if let v = reader.number(h["silentMinutes"], p.appending("silentMinutes"), 0.1...100_000) {
        settings.silentAfter = v * 60
      }
    }
    if let json = top["tags"] {
      guard case .object(let members) = json.kind else {
        return reader.problem(json, root.appending("tags"), "expected an object keyed by tag")
      }
      for member in members {
        let p = root.appending("tags").appending(member.key)
        if let t = reader.object(member.value, p, keys: ["timeout"]),
          let v = reader.number(t["timeout"], p.appending("timeout"), 1...86_400)
        {
          settings.tagTimeouts[member.key] = v
        }
      }
    }
  }

  static func event(_ json: SourceJSON, _ path: JSONPath, _ calendar: Calendar, _ reader: inout EventFileReader)
    -> EventDefinition?
  {
    guard let e = reader.object(json, path, keys: eventKeys) else { return nil }
    let name = reader.string(e["name"], path.appending("name"))
    if e["name"] == nil { reader.problem(json, path.appending("name"), "missing") }
    let triggers = EventTrigger.allCases.map { ($0.rawValue, $0) }
    let trigger = reader.choice(e["trigger"], path.appending("trigger"), triggers)
    if e["trigger"] == nil {
      reader.problem(json, path.appending("trigger"), "missing", allowed: triggers.map(\.0).joined(separator: ", "))
    }
    // A device is named by address or by beacon identity (`BeaconIdentity`, canonicalised by `EventDefinition`).
    let devices = reader.strings(e["devices"], path.appending("devices")) { text in
      if BluetoothAddress(text) != nil { return nil }
      if BeaconIdentity.isIntended(text) {
        return BeaconIdentity(text) != nil
          ? nil : "\"\(text.echoed)\" is not a beacon identity (allowed: \(BeaconIdentity.allowed))"
      }
      return "\"\(text.echoed)\" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF or \(BeaconIdentity.allowed))"
    }
    let tags = reader.strings(e["tags"], path.appending("tags"))
    let proximities = Proximity.allCases.filter { $0 != .unknown }.map { ($0.rawValue, $0) }
    let health = reader.strings(e["health"], path.appending("health")) {
      HealthCondition(rawValue: $0) == nil
        ? "\"\($0.echoed)\" is not a health condition (battery, silent, firmware)" : nil
    }
    var schedule = EventSchedule()
    if let json = e["schedule"] {
      if case .array(let items) = json.kind {
        for (i, item) in items.enumerated() {
          if let window = ScheduleWindowDecoder.window(item, path.appending("schedule").appending(i), calendar, &reader)
          {
            schedule.windows.append(window)
          }
        }
      } else {
        reader.problem(json, path.appending("schedule"), "expected an array of windows")
      }
    }
    let actions = e["actions"].map { EventActionDecoder.actions($0, path.appending("actions"), &reader) } ?? []
    guard let name, let trigger else { return nil }
    return EventDefinition(
      name: name, trigger: trigger, devices: Set(devices ?? []), tags: Set(tags ?? []),
      triggerOnce: reader.bool(e["triggerOnce"], path.appending("triggerOnce")) ?? false,
      minimumProximity: reader.choice(e["minimumProximity"], path.appending("minimumProximity"), proximities),
      minimumRSSI: reader.int(e["minimumRSSI"], path.appending("minimumRSSI"), -127...20),
      cooldown: reader.number(e["cooldown"], path.appending("cooldown"), 0...86_400 * 365),
      health: health.map { Set($0.compactMap(HealthCondition.init(rawValue:))) } ?? Set(HealthCondition.allCases),
      schedule: schedule, actions: actions,
      message: EventOperatorFields.message(e["message"], path.appending("message"), &reader),
      payload: EventOperatorFields.payload(e["payload"], path.appending("payload"), &reader))
  }
}
