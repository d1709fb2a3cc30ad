import Foundation
import Simulator
import Synchronization
import TestServers

/// A real `beacon-provision reconcile` process on a simulated site (its fleet file, profile and state
/// directory in a folder of their own), its JSON events and standard-error lines collected as they come,
/// for the tests of `ReconcileProcessTests`.
final class ReconcileProcess: Sendable {
  let folder: String
  var fleet: String { folder + "/fleet.json" }
  var profile: String { folder + "/profile.json" }
  var state: String { folder + "/state" }
  /// One `--jsonl` line.
  struct Event: Decodable, Sendable {
    var event: String
    var at: String
    var address: String?
    var profile: String?
    var keys: [String]?
    var drift: [String]?
    var seconds: Double?
    var failures: Int?
    var reason: String?
    var from: String?
    var to: String?
  }

  private let events = Mutex<[Event]>([])
  private let errors = Mutex<[String]>([])
  private let process = Mutex<ChildProcess?>(nil)

  static func address(_ i: Int) -> String { String(format: "DD:34:02:06:F2:%02X", i) }

  /// `devices`: each entry's extra fleet-file keys (after its address, kind, name and frames), by index.
  init(devices: [String], profileName: String = "site") throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("reconcile-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let entries = devices.enumerated().map { i, extra in
      // An entry's own `system` section (its battery) replaces the default one.
      let system =
        extra.contains(#""system""#) ? "" : #", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#
      return #"{"address": "\#(Self.address(i))", "kind": "kbeaconPro", "name": "KBPro_\#(i)", "intervalMs": 200"#
        + #"\#(system)\#(extra.isEmpty ? "" : ", " + extra)}"#
    }
    try #"{"version": 1, "devices": [\#(entries.joined(separator: ",\n"))]}"#.write(
      toFile: fleet, atomically: true, encoding: .utf8)
    try writeProfile(name: profileName, count: devices.count)
  }

  func writeProfile(name: String, count: Int) throws {
    let addresses = (0..<count).map { "\"\(Self.address($0))\"" }.joined(separator: ", ")
    try #"""
    {"version": 1, "select": {"addresses": [\#(addresses)]},
     "desired": {"name": "\#(name)", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 9}]}}
    """#.write(toFile: profile, atomically: true, encoding: .utf8)
  }

  /// `environment`: added to this process's (e.g. `SimulatorPauseHook`'s variable).
  func start(_ extra: [String] = [], environment: [String: String] = [:]) throws {
    let child = try ChildProcess.start(
      ApplyCrashTests.binary,
      ["reconcile", profile, "--adapter", "sim:\(fleet)", "--window", "1", "--jsonl", "--state-dir", state] + extra,
      environment: environment)
    let (outLines, errLines) = (child.output!, child.errors!)
    process.withLock { $0 = child }
    Task {
      for await line in outLines {
        guard let event = try? JSONDecoder().decode(Event.self, from: Data(line.utf8)) else { continue }
        events.withLock { $0.append(event) }
      }
    }
    Task { for await line in errLines { errors.withLock { $0.append(line) } } }
  }

  /// The events so far named `name` (for `address`, when given).
  func events(_ name: String, _ address: String? = nil) -> [Event] {
    events.withLock { all in all.filter { $0.event == name && (address == nil || $0.address == address) } }
  }

  var errorLines: [String] { errors.withLock { $0 } }

  /// The process's last 20 lines of standard error, one per line: what a failed expectation prints.
  var tail: String { errorLines.suffix(20).joined(separator: "\n") }

  /// Forgets the events and lines collected so far (before a second start on the same site).
  func clearEvents() {
    events.withLock { $0 = [] }
    errors.withLock { $0 = [] }
  }

  /// Waits (polling) until `condition` holds; false after `seconds`.
  func wait(seconds: Double, until condition: () -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < end {
      if condition() { return true }
      try await Task.sleep(for: .milliseconds(100))
    }
    return condition()
  }

  func signal(_ number: Int32) {
    if let child = process.withLock({ $0 }), child.process.isRunning { kill(child.pid, number) }
  }

  /// Waits for the process to end; its status.
  func exitStatus() async -> Int32 {
    guard let child = process.withLock({ $0 }) else { return -1 }
    return await child.wait()
  }

  /// `cfg` writes each device accepted, from the simulator's write log.
  func writes() throws -> [String: Int] {
    let log = SimulatorStateStore(stateDirectory: state, fleetFile: fleet).writeLog
    return Dictionary(try log.writes().filter { $0.what == "cfg" }.map { ($0.address, 1) }, uniquingKeysWith: +)
  }

  deinit {
    if let child = process.withLock({ $0 }), child.process.isRunning { kill(child.pid, SIGKILL) }
    try? FileManager.default.removeItem(atPath: folder)
  }
}
