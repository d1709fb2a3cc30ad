import Fleet
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `monitor` against an unpaced simulated fleet where one beacon changes address (two simulated devices with
/// the same iBeacon identity, one heard until 10 s and the other from then on): an inventory naming the
/// identity gives one enter and one exit, each event carrying the identity and the address last heard.
@Suite(.isolatedState, .timeLimit(.minutes(2))) struct MonitorIdentityTests {
  typealias Lines = ScanCommandTests.Lines

  static let first = "D0:00:00:00:20:01", second = "D0:00:00:00:20:02"
  static let identity = "ibeacon:E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:7:42"

  /// A folder with the two-address fleet.
  static func folder() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "monitor-id-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let beacon = #""iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 42}"#
    try #"""
    {"version": 1, "devices": [
      {"address": "\#(Self.first)", "kind": "iBeacon", "intervalMs": 200, "rssi": {"mean": -60, "spread": 0}, \#(beacon),
       "presence": [{"from": 0, "to": 10}]},
      {"address": "\#(Self.second)", "kind": "iBeacon", "intervalMs": 200, "rssi": {"mean": -60, "spread": 0}, \#(beacon),
       "presence": [{"from": 10, "to": 20}]}
    ]}
    """#.write(toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    return folder
  }

  @Test func aBeaconThatChangesAddressIsOneDevice() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try "address,tags\n\(Self.identity.uppercased()),dock\n".write(
      toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    try #"""
    {"version": 1, "defaults": {"exitTimeout": 3},
     "events": [{"name": "arrive", "trigger": "enter"}, {"name": "leave", "trigger": "exit"}]}
    """#.write(toFile: folder + "/events.json", atomically: true, encoding: .utf8)
    let command =
      try MonitorCommand.parseAsRoot([
        "--adapter", "sim:\(folder)/fleet.json", "--inventory", "\(folder)/inventory.csv", "--events",
        "\(folder)/events.json",
        "--jsonl", "--duration", "30", "--state-dir", folder + "/state",
      ]) as! MonitorCommand
    let lines = Lines()
    try await command.run(pace: .unpaced, write: lines.add)
    let events = try lines.all.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    let shown = events.map { e -> String in
      let device = e["device"] as? [String: Any]
      return
        "\(e["event"]!) \(device?["identity"] ?? "-") \(device?["address"] ?? "-") \(device?["tags"] as? [String] ?? [])"
    }
    #expect(
      shown == [
        "arrive \(Self.identity) \(Self.first) [\"dock\"]",
        "leave \(Self.identity) \(Self.second) [\"dock\"]",
      ])
  }

  /// Inventory rows never heard — an identity no registry device showed and an address nobody has seen —
  /// are reported `silent` once the silent threshold has passed since the start,
  /// without `lastSeen`, as the beacon heard until 20 s is at 80 s with its `lastSeen`.
  @Test func inventoryRowsNeverHeardAreReportedSilent() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let unheard = "ibeacon:E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:7:43"
    let lines = try await Self.silentEvents(
      folder: folder, fleet: "fleet.json", inventory: [Self.identity, unheard, "D0:00:00:00:20:09"], seconds: 90)
    let events = try lines.all.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    let shown = Set(
      events.map { e -> String in
        let device = e["device"] as? [String: Any]
        return "\(e["event"]!) \(device?["address"] ?? "-") \(device?["lastSeen"] == nil ? "never" : "seen")"
      })
    #expect(
      shown == [
        "quiet D0:00:00:00:20:09 never", "quiet \(unheard) never", "quiet \(Self.second) seen",
      ], "\(lines.all)")
  }

  /// An identity row the monitor never hears but a `scan` into the same state directory heard (a gateway's
  /// scan, or another gateway's monitor on a shared registry) is `silent` from the registry's time: its event
  /// carries the address the scan heard it at and that time as `lastSeen`; a row nothing heard has none.
  @Test func anIdentityRowHeardOnlyByAnEarlierScanGoesSilentFromThen() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let state = folder + "/state"
    let scan = try await CLIProcess.run([
      "scan", "--adapter", "sim:\(folder)/fleet.json", "--duration", "2", "--json", "--state-dir", state,
    ])
    #expect(scan.status == 0, "\(scan.errors)")
    let journal = try Journal(path: state + "/journal.sqlite")
    let known = try await FleetRegistry(journal: journal).device(Self.first)
    #expect(known?.identities == [Self.identity], "\(String(describing: known))")
    let heard = try #require(known?.lastSeen)

    // The monitor's fleet: only a stranger on the air (the beacon is gone).
    try #"""
    {"version": 1, "devices": [{"address": "D0:00:00:00:20:0F", "kind": "iBeacon", "intervalMs": 500,
      "iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1}}]}
    """#.write(toFile: folder + "/empty.json", atomically: true, encoding: .utf8)
    let unheard = "ibeacon:E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:7:43"
    let lines = try await Self.silentEvents(
      folder: folder, fleet: "empty.json", inventory: [Self.identity, unheard], seconds: 61)
    let events = try lines.all.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    let devices = events.compactMap { $0["device"] as? [String: Any] }
    let named = try #require(devices.first { $0["identity"] as? String == Self.identity }, "\(lines.all)")
    #expect(named["address"] as? String == Self.first)
    let lastSeen = try #require(ISO8601DateFormatter.fractional.date(from: named["lastSeen"] as? String ?? ""))
    #expect(abs(lastSeen.timeIntervalSince(heard)) < 0.01, "\(lastSeen) vs \(heard)")
    // The row nothing ever heard is watched from the monitor's start, and has no last-seen time.
    let never = try #require(devices.first { $0["address"] as? String == unheard }, "\(lines.all)")
    #expect(never["lastSeen"] == nil)
    #expect(events.count == 2, "\(lines.all)")
  }

  /// `monitor --jsonl` for `seconds` of simulated time on the fleet file `fleet` in `folder` (state in
  /// `folder/state`), with an inventory of `inventory` and one event: `silent` after a minute.
  static func silentEvents(folder: String, fleet: String, inventory: [String], seconds: Int) async throws -> Lines {
    try (["address"] + inventory).joined(separator: "\n").appending("\n").write(
      toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    try #"""
    {"version": 1, "health": {"silentMinutes": 1},
     "events": [{"name": "quiet", "trigger": "health", "health": ["silent"]}]}
    """#.write(toFile: folder + "/events.json", atomically: true, encoding: .utf8)
    let command =
      try MonitorCommand.parseAsRoot([
        "--adapter", "sim:\(folder)/\(fleet)", "--inventory", "\(folder)/inventory.csv", "--events",
        "\(folder)/events.json", "--jsonl", "--duration", "\(seconds)", "--state-dir", folder + "/state",
      ]) as! MonitorCommand
    let lines = Lines()
    try await command.run(pace: .unpaced, write: lines.add)
    return lines
  }

  /// Named only by an event (no inventory): the plain output line shows the identity after the address, and
  /// a command action gets it as `BEACON_IDENTITY`.
  @Test func anEventNamingTheIdentityFollowsItInPlainLinesAndCommands() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let out = folder + "/ran.txt"
    try "printf '%s|%s\\n' \"$BEACON_ADDRESS\" \"$BEACON_IDENTITY\" >>'\(out)'\n"
      .write(toFile: folder + "/hook.sh", atomically: true, encoding: .utf8)
    try #"""
    {"version": 1, "defaults": {"exitTimeout": 3},
     "events": [{"name": "arrive", "trigger": "enter", "devices": ["\#(Self.identity.uppercased())"],
                 "actions": [{"type": "command", "run": ["/bin/sh", "\#(folder)/hook.sh"]}]}]}
    """#.write(toFile: folder + "/events.json", atomically: true, encoding: .utf8)
    let command =
      try MonitorCommand.parseAsRoot([
        "--adapter", "sim:\(folder)/fleet.json", "--events", "\(folder)/events.json", "--duration", "30", "--state-dir",
        folder + "/state",
      ]) as! MonitorCommand
    let lines = Lines()
    try await command.run(pace: .unpaced, write: lines.add)
    #expect(lines.all.count == 1)
    #expect(lines.all.first?.contains(" enter arrive \(Self.first) \(Self.identity) ") == true)
    try await MonitorWebhookCrashTests.until(20) {
      ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").hasSuffix("\n")
    }
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "\(Self.first)|\(Self.identity)\n")
  }

  /// `audit --inventory` (and apply's profile inventory, which reads it the same way) connects by address: a
  /// row naming an identity is refused with a message saying only the monitor reads it.
  @Test func auditsInventoryRefusesAnIdentityRow() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/inventory.csv"
    try "address\n\(Self.identity)\n".write(toFile: path, atomically: true, encoding: .utf8)
    #expect(try AuditRunner.loadInventory(path, identities: true).rows.map(\.address) == [Self.identity])
    #expect {
      try AuditRunner.loadInventory(path)
    } throws: { error in
      (error as? CLIFailure)?.message.contains(
        "\(path):2:1: $[0].address: \"\(Self.identity.uppercased())\" names a beacon by identity, which only `monitor --inventory` reads"
      ) == true
    }
  }
}
