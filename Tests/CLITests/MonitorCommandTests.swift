import ArgumentParser
import Fleet
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `monitor` in process against an unpaced simulated fleet whose devices appear and go silent on a
/// schedule (`presence` windows): the events, in order per device and per tag, with trigger-once honoured,
/// and the fleet registry updated.
@Suite(.isolatedState, .timeLimit(.minutes(2))) struct MonitorCommandTests {
  typealias Lines = ScanCommandTests.Lines

  static let a = "AC:23:3F:00:10:01", b = "AC:23:3F:00:10:02", c = "E1:DD:57:00:10:03"

  static func folder() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID().uuidString.prefix(8))")
      .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let beacon = #""iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1}"#
    try #"""
    {"version": 1, "devices": [
      {"address": "\#(a)", "kind": "iBeacon", "intervalMs": 200, "rssi": {"mean": -60, "spread": 0}, \#(beacon),
       "presence": [{"from": 0, "to": 10}, {"from": 20}]},
      {"address": "\#(b)", "kind": "iBeacon", "intervalMs": 200, "rssi": {"mean": -60, "spread": 0}, \#(beacon),
       "presence": [{"from": 3, "to": 12}]},
      {"address": "\#(c)", "kind": "eddystone", "intervalMs": 300,
       "eddystoneTLM": {"batteryMillivolts": 2100, "temperature": 20}}
    ]}
    """#.write(toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    try "address,tags\n\(a),dock\n\(b),dock\n\(c),\n".write(
      toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    try #"""
    {"version": 1, "defaults": {"exitTimeout": 3}, "tags": {"dock": {"timeout": 5}},
     "events": [
       {"name": "arrive", "trigger": "enter"}, {"name": "leave", "trigger": "exit"},
       {"name": "dock-open", "trigger": "enter", "tags": ["dock"]}, {"name": "dock-close", "trigger": "exit", "tags": ["dock"]},
       {"name": "first-a", "trigger": "enter", "devices": ["\#(a)"], "triggerOnce": true},
       {"name": "low", "trigger": "health", "health": ["battery"]}
     ]}
    """#.write(toFile: folder + "/events.json", atomically: true, encoding: .utf8)
    return folder
  }

  @Test func aScriptedFleetGivesTheExactEventsInOrder() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let command =
      try MonitorCommand.parseAsRoot([
        "--adapter", "sim:\(folder)/fleet.json", "--inventory", "\(folder)/inventory.csv", "--events",
        "\(folder)/events.json",
        "--jsonl", "--duration", "30", "--state-dir", folder + "/state",
      ]) as! MonitorCommand
    let lines = Lines()
    try await command.run(pace: .unpaced, write: lines.add)
    let events = try lines.all.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    func subject(_ e: [String: Any]) -> String {
      ((e["device"] as? [String: Any])?["address"] as? String) ?? "tag:"
        + ((e["tag"] as? [String: Any])?["name"] as? String ?? "?")
    }
    func named(_ s: String) -> [String] { events.filter { subject($0) == s }.map { "\($0["event"]!) \($0["kind"]!)" } }
    #expect(named(Self.a) == ["arrive enter", "first-a enter", "leave exit", "arrive enter"])
    #expect(named(Self.b) == ["arrive enter", "leave exit"])
    #expect(named(Self.c) == ["arrive enter", "low battery-low"])
    #expect(named("tag:dock") == ["dock-open session-open", "dock-close session-close", "dock-open session-open"])
    // The whole order: the dock closes after both its devices left, and opens again when A is back.
    let order = events.map { "\($0["event"]!) \(subject($0))" }
    let index = { (s: String) in order.firstIndex(of: s) ?? -1 }
    #expect(index("leave \(Self.a)") < index("leave \(Self.b)"))
    #expect(index("leave \(Self.b)") < index("dock-close tag:dock"))
    #expect(index("dock-close tag:dock") < order.lastIndex(of: "arrive \(Self.a)")!)
    // Times: A leaves 3–4 s (a window) after it was last heard, about 9–10 s after the window it came in; the dock closes
    // 5–6 s after B, its last device, was last heard.
    let date = { (text: Any?) in ISO8601DateFormatter.fractional.date(from: text as! String)!.timeIntervalSince1970 }
    let leaveA = events[index("leave \(Self.a)")]
    let leaveB = events[index("leave \(Self.b)")]
    let lastA = date((leaveA["device"] as! [String: Any])["lastSeen"])
    let lastB = date((leaveB["device"] as! [String: Any])["lastSeen"])
    #expect((3...4).contains(date(leaveA["at"]) - lastA))
    #expect((8.9...10).contains(lastA - date(events[index("arrive \(Self.a)")]["at"])))
    #expect((5...6).contains(date(events[index("dock-close tag:dock")]["at"]) - lastB))
    #expect(Set(events.map { $0["id"] as! String }).count == events.count)

    let journal = try Journal(path: folder + "/state/journal.sqlite")
    let registry = FleetRegistry(journal: journal)
    let devices = try await registry.devices()
    #expect(devices.map(\.address) == [Self.a, Self.b, Self.c])
    #expect(devices.last?.batteryMillivolts == 2100)
    #expect(try await registry.history(Self.c).count >= 3)
  }

  /// A `command` action runs the program (no shell in between) once per event, with the event in its
  /// environment: the JSON body and its name, kind, id and address.
  @Test func aCommandActionGetsTheEventInItsEnvironment() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let out = folder + "/ran.txt"
    try """
    printf '%s|%s|%s|%s\\n' "$BEACON_EVENT_NAME" "$BEACON_EVENT_KIND" "$BEACON_ADDRESS" "$BEACON_EVENT_ID" >>'\(out)'
    printf '%s\\n' "$BEACON_EVENT" >>'\(out).json'
    """.write(toFile: folder + "/hook.sh", atomically: true, encoding: .utf8)
    try #"""
    {"version": 1, "defaults": {"exitTimeout": 3}, "events": [{"name": "arrive", "trigger": "enter", "devices": ["\#(Self.a)"],
      "actions": [{"type": "command", "run": ["/bin/sh", "\#(folder)/hook.sh"]}, {"type": "jsonl"}]}]}
    """#.write(toFile: folder + "/run.json", atomically: true, encoding: .utf8)
    let command =
      try MonitorCommand.parseAsRoot([
        "--adapter", "sim:\(folder)/fleet.json", "--events", folder + "/run.json", "--duration", "30", "--state-dir",
        folder + "/state",
      ]) as! MonitorCommand
    let lines = Lines()
    try await command.run(pace: .unpaced, write: lines.add)
    let printed = try lines.all.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    #expect(printed.count == 2)  // A is on the air from 0 s and again from 20 s
    // The commands are not waited for by the monitor: give them a moment.
    try await MonitorWebhookCrashTests.until(20) {
      ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").count >= 2
    }
    let ran = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init).sorted()
    let ids = printed.map { $0["id"] as! String }.sorted()
    #expect(ran == ids.map { "arrive|enter|\(Self.a)|\($0)" })
    let bodies = try String(contentsOfFile: out + ".json", encoding: .utf8).split(separator: "\n")
      .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    #expect(bodies.map { $0["id"] as! String }.sorted() == ids)
    #expect(
      bodies.allSatisfy {
        ($0["device"] as? [String: Any])?["address"] as? String == Self.a && $0["kind"] as? String == "enter"
      })
  }

  @Test func aBadEventsFileNamesEveryProblem() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try #"{"version": 1, "events": [{"name": "x", "trigger": "leave"}]}"#.write(
      toFile: folder + "/bad.json", atomically: true, encoding: .utf8)
    let command =
      try MonitorCommand.parseAsRoot(["--adapter", "sim", "--events", folder + "/bad.json", "--duration", "1"])
      as! MonitorCommand
    await #expect(throws: CLIFailure.self) { try await command.run(pace: .unpaced, write: { _ in }) }
  }

  /// A restarted monitor fired `enter` for every present device again, `session-open` for every tag,
  /// `battery-low` and trigger-once events: the presence state is kept in the state directory.
  @Test func aRestartDoesNotRefireWhatIsStillTrue() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // B on the air from the start (its window opens at 3 s in the shared fleet): after the restart it would
    // be quiet for 3 s, exactly its exitTimeout — an exit or not by a hair, whichever way the machine's load
    // tipped it.
    let fleet = try String(contentsOfFile: folder + "/fleet.json", encoding: .utf8)
    try fleet.replacingOccurrences(
      of: #""presence": [{"from": 3, "to": 12}]"#, with: #""presence": [{"from": 0, "to": 12}]"#
    )
    .write(toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    func run() async throws -> [String] {
      let command =
        try MonitorCommand.parseAsRoot([
          "--adapter", "sim:\(folder)/fleet.json", "--inventory", "\(folder)/inventory.csv", "--events",
          "\(folder)/events.json",
          "--jsonl", "--duration", "5", "--state-dir", folder + "/state",
        ]) as! MonitorCommand
      let lines = Lines()
      try await command.run(pace: .unpaced, write: lines.add)
      return try lines.all.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }.map {
        "\($0["event"]!)"
      }
    }
    #expect(try await run().sorted() == ["arrive", "arrive", "arrive", "dock-open", "first-a", "low"])
    #expect(FileManager.default.fileExists(atPath: folder + "/state/monitor-state.json"))
    // The same devices are heard again: nothing new happened.
    #expect(try await run() == [])
  }

  /// An inventory `exitTimeout` of 0 made a device heard throughout enter and exit every second: refused at
  /// start, before any scanning, naming the file, the row and the allowed range.
  @Test func anInventoryExitTimeoutOutOfRangeIsRefusedAtStart() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try "address,exitTimeout\n\(Self.a),0\n".write(toFile: folder + "/zero.csv", atomically: true, encoding: .utf8)
    let command =
      try MonitorCommand.parseAsRoot([
        "--adapter", "sim:\(folder)/fleet.json", "--inventory", folder + "/zero.csv", "--events",
        "\(folder)/events.json",
        "--jsonl", "--duration", "5", "--state-dir", folder + "/state",
      ]) as! MonitorCommand
    let lines = Lines()
    do {
      try await command.run(pace: .unpaced, write: lines.add)
      Issue.record("a monitor with exitTimeout 0 ran")
    } catch let failure as CLIFailure {
      #expect(failure.message.contains("zero.csv:2:1: $[0].exitTimeout:"), "\(failure.message)")
      #expect(failure.message.contains("allowed: seconds, 1…86400"))
    }
    #expect(lines.all.isEmpty)
  }
}

extension ISO8601DateFormatter {
  static var fractional: ISO8601DateFormatter {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return f
  }
}
