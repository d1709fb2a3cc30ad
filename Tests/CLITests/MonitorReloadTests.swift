import Foundation
import Testing

/// `monitor` re-reads its inventory and events file on SIGHUP (systemd's `ExecReload=kill -HUP`), as a real
/// process: presence is kept (no second `enter` for a device present throughout), a device the new inventory
/// adds enters, and a bad file is refused with its path and JSON path while the old ones stay in force.
@Suite(.timeLimit(.minutes(3))) struct MonitorReloadTests {
  typealias Fleet = MonitorMetricsTests

  /// The `event` name and device address of each JSON line printed.
  static func events(_ lines: [String]) -> [(name: String, address: String)] {
    lines.compactMap { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let name = object["event"] as? String, let device = object["device"] as? [String: Any],
        let address = device["address"] as? String
      else { return nil }
      return (name, address)
    }
  }

  static func presentDevices(_ base: String) async throws -> [String] {
    let (_, body) = try await MonitorProcess.curl(base + "/presence")
    let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    return (object?["devices"] as? [[String: Any]])?.compactMap { $0["address"] as? String } ?? []
  }

  @Test func sighupReloadsInventoryAndEventsKeepingPresenceAndRefusesABadFile() async throws {
    let (a, b) = (Fleet.a, Fleet.b)
    let folder = try Fleet.folder("monitor-reload", inventory: "address,tags\n\(a),lobby\n")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let events = folder + "/events.json"
    try #"{"version": 1, "events": [{"name": "in", "trigger": "enter"}, {"name": "out", "trigger": "exit"}]}"#
      .write(toFile: events, atomically: true, encoding: .utf8)
    let monitor = try MonitorProcess([
      "--adapter", "sim:\(folder)/fleet.json", "--inventory", folder + "/inventory.csv", "--events", events,
      "--state-dir", folder + "/state", "--metrics", "127.0.0.1:0", "--jsonl", "--duration", "120",
    ])
    let base = "http://\(try await monitor.address())"
    try await MonitorProcess.until(30, "A in /presence") { try await Self.presentDevices(base) == [a] }
    #expect(Self.events(monitor.output.all).map(\.name) == ["in"])

    // A new inventory with B, and a new event: A stays present without a second enter, B enters.
    try "address,tags\n\(a),lobby\n\(b),lobby\n".write(
      toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    try
      #"{"version": 1, "events": [{"name": "in", "trigger": "enter"}, {"name": "out", "trigger": "exit"}, {"name": "hello", "trigger": "enter"}]}"#
      .write(toFile: events, atomically: true, encoding: .utf8)
    kill(monitor.process.processIdentifier, SIGHUP)
    try await MonitorProcess.until(30, "A and B in /presence; stderr: \(monitor.errors.all)") {
      try await Self.presentDevices(base) == [a, b]
    }
    #expect(
      monitor.errors.all.contains { $0.contains("monitor: reloaded") && $0.contains("3 events, 2 inventory devices") })
    try await MonitorProcess.until(10, "B's events") { Self.events(monitor.output.all).count >= 3 }

    // A bad events file: refused with its path and the JSON path; the old definitions and presence stay.
    try #"{"version": 1, "events": [{"name": "in", "trigger": "sometimes"}]}"#
      .write(toFile: events, atomically: true, encoding: .utf8)
    kill(monitor.process.processIdentifier, SIGHUP)
    var refusal: String?
    try await MonitorProcess.until(30, "a refused reload on stderr: \(monitor.errors.all)") {
      refusal = monitor.errors.all.first { $0.contains("reload refused") }
      return refusal != nil
    }
    let said = monitor.errors.all.drop { !$0.contains("reload refused") }.joined(separator: "\n")
    #expect(said.contains(events) && said.contains("trigger"), "\(said)")
    #expect(monitor.process.isRunning)
    #expect(try await Self.presentDevices(base) == [a, b])
    #expect(try await MonitorProcess.curl(base + "/healthz").status == 200)

    await monitor.stop()
    let fired = Self.events(monitor.output.all)
    // One enter per device and definition: A's `in` before the reload; B's `in` and `hello` after it.
    #expect(fired.filter { $0.address == a }.map(\.name) == ["in"], "\(fired)")
    #expect(fired.filter { $0.address == b }.map(\.name).sorted() == ["hello", "in"], "\(fired)")
    // Event numbering goes on across the reload: every idempotency key (webhook, --jsonl `id`) is unique.
    let ids = monitor.output.all.compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
    }
    #expect(ids.count == fired.count && Set(ids).count == ids.count, "\(ids)")
  }
}
