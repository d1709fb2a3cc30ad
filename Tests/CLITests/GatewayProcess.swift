import Foundation
import Simulator
import Synchronization
import TestServers

/// One `beacon-provision` gateway process of the several-gateways tests: started at once, its
/// standard error drained all along (a full pipe would stall it) into a `LogTail`, and awaitable lines.
final class GatewayProcess: Sendable {
  let process: SpawnedProcess
  let exit: ProcessExit
  let tail = LogTail()
  private let watch = LineWatch()
  private let drained: Task<Void, Never>

  /// `environment` is added to this process's own (a test hook: `SimulatorPauseHook`).
  init(_ arguments: [String], environment: [String: String] = [:]) throws {
    let child = try ChildProcess.start(
      ApplyCrashTests.binary, arguments, environment: environment, output: .discarded)
    (process, exit) = (child.process, child.exit)
    let lines = child.errors ?? AsyncStream { $0.finish() }
    let (tail, watch) = (tail, watch)
    drained = Task {
      for await line in lines {
        tail.add(line)
        watch.offer(line)
      }
      watch.end()
    }
  }

  /// Waits for a line of standard error matching `predicate`; false when the process ended first.
  func line(where predicate: @escaping @Sendable (String) -> Bool) async -> Bool {
    await withCheckedContinuation { watch.add(predicate, $0) }
  }

  /// Waits for the end; its exit status and why, for a failure's message.
  func finish() async -> (status: Int32, text: String) {
    await exit.wait()
    await drained.value
    return (process.terminationStatus, "\(process.arguments?.joined(separator: " ") ?? ""):\n\(tail.text)")
  }

  func signal(_ number: Int32) { kill(process.processIdentifier, number) }

  /// Whether the process is stopped (SIGSTOP: state `T` in /proc/PID/stat), waiting up to `seconds` for it.
  func isStopped(within seconds: Double = 10) async -> Bool {
    let path = "/proc/\(process.processIdentifier)/stat"
    for _ in 0..<Int(seconds * 20) {
      // The state follows the command name's closing parenthesis: "PID (comm) T …".
      if let text = try? String(contentsOfFile: path, encoding: .utf8), let end = text.lastIndex(of: ")"),
        text[text.index(after: end)...].trimmingCharacters(in: .whitespaces).first == "T"
      {
        return true
      }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return false
  }
}

/// Waiters for a line that matches, each resumed once: by the first such line, or with false at the end.
final class LineWatch: Sendable {
  private let state = Mutex<(ended: Bool, waiters: [(@Sendable (String) -> Bool, CheckedContinuation<Bool, Never>)])>(
    (false, []))

  func add(_ predicate: @escaping @Sendable (String) -> Bool, _ continuation: CheckedContinuation<Bool, Never>) {
    let ended = state.withLock { s in
      if !s.ended { s.waiters.append((predicate, continuation)) }
      return s.ended
    }
    if ended { continuation.resume(returning: false) }
  }

  func offer(_ line: String) {
    let matched = state.withLock { s in
      let (hit, rest) = (s.waiters.filter { $0.0(line) }, s.waiters.filter { !$0.0(line) })
      s.waiters = rest
      return hit.map(\.1)
    }
    for continuation in matched { continuation.resume(returning: true) }
  }

  func end() {
    let waiting = state.withLock { s in
      s.ended = true
      defer { s.waiters = [] }
      return s.waiters.map(\.1)
    }
    for continuation in waiting { continuation.resume(returning: false) }
  }
}

/// A small simulated site for the several-gateways tests: `count` KBeacons with consecutive addresses in
/// `block`, each gateway's view (`heard`: gateway → RSSI for every device), an inventory and a profile that
/// writes each device once (name and slot 0).
struct GatewaySite {
  let folder: String, fleet: String, profile: String, count: Int, block: Int
  var state: String { folder + "/state" }

  func address(_ i: Int) -> String { String(format: "DD:35:%02X:07:E1:%02X", block, i) }

  init(count: Int, block: Int, heard: [String: Int]) throws {
    try self.init(count: count, block: block, gateways: heard.keys.sorted()) { gateway, _ in heard[gateway] }
  }

  /// `rssi(gateway, i)`: the RSSI at which `gateway` hears device `i` (nil: it does not); every device is a
  /// KBeacon Pro running `firmware` unless `kind(i)` gives device `i`'s kind and its sections (fleet-file JSON),
  /// and has the fleet file's `dfu` section `dfu` (JSON) when given.
  init(
    count: Int, block: Int, gateways: [String], firmware: String = "5.22", dfu: String? = nil,
    kind: ((Int) -> String?)? = nil, rssi: (String, Int) -> Int?
  ) throws {
    (self.count, self.block) = (count, block)
    folder = try LocalTools.temporaryDirectory("gateways-b")
    fleet = folder + "/fleet.json"
    profile = folder + "/site.json"
    let addresses = (0..<count).map { String(format: "DD:35:%02X:07:E1:%02X", block, $0) }
    let dfuSection = dfu.map { #", "dfu": \#($0)"# } ?? ""
    let pro = #""kind": "kbeaconPro", "system": {"model": 12, "batteryPercent": 90, "firmware": "\#(firmware)"}"#
    let devices = addresses.enumerated().map { i, a in
      #"{"address": "\#(a)", \#(kind?(i) ?? pro), "name": "KBPro_H\#(i)", "intervalMs": 200\#(dfuSection)}"#
    }
    let views = Dictionary(
      uniqueKeysWithValues: gateways.map { gateway in
        (
          gateway,
          Dictionary(
            uniqueKeysWithValues: addresses.enumerated().compactMap { i, a in rssi(gateway, i).map { (a, $0) } })
        )
      })
    let viewText = String(decoding: try JSONEncoder().encode(views), as: UTF8.self)
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))], "gateways": \#(viewText)}"#
      .write(toFile: fleet, atomically: true, encoding: .utf8)
    let rows = ["address,minor"] + addresses.enumerated().map { "\($1),\(3000 + $0)" }
    try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    let desired =
      #""desired": {"name": "hall-{{minor}}", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 8, "minor": "{{minor}}"}]}"#
    try #"{"version": 1, "inventory": "inventory.csv", \#(desired)}"#.write(
      toFile: profile, atomically: true, encoding: .utf8)
  }

  /// Creates the state directory's SQLite journal before the gateways start: processes opening a fresh
  /// one at once race on its migration (`JournalMigrationRaceTests`) — not what these
  /// tests are about. (`campaign status` of no run opens it, then says there is no such run.)
  func prepareState() async throws {
    let opened = try await LocalTools.output(
      ApplyCrashTests.binary, ["campaign", "status", "none", "--state-dir", state], in: folder, within: 60)
    guard FileManager.default.fileExists(atPath: state + "/journal.sqlite") else {
      throw ServerError("no journal in \(state): \(opened.stderr)")
    }
  }

  /// `apply` on this site as a gateway of run "site" on `journal`, with `extra` options.
  func apply(journal: String, parallel: Int = 2, _ extra: [String]) -> [String] {
    [
      "apply", profile, "--adapter", "sim:\(fleet)", "--scan", "2", "--parallel", "\(parallel)", "--retry-delay", "0",
      "--state-dir", state, "--journal", journal, "--run", "site",
    ] + extra
  }

  /// `dfu update` of `package` on this site as a gateway of run "site" on `journal`, with `extra` options.
  func dfuUpdate(journal: String, package: String, parallel: Int = 2, _ extra: [String]) -> [String] {
    [
      "dfu", "update", "--package", package, "--adapter", "sim:\(fleet)", "--scan", "2", "--parallel", "\(parallel)",
      "--retry-delay", "0", "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "5", "--state-dir", state,
      "--journal", journal, "--run", "site",
    ] + extra
  }

  /// The shared write log of the site's simulated devices: every write each gateway process made them accept.
  var writeLog: SimulatorWriteLog { store.writeLog }

  /// The saved state of the site's simulated devices (their configuration; a device's bootloader while it is in one).
  var store: SimulatorStateStore { SimulatorStateStore(stateDirectory: state, fleetFile: fleet) }

  /// Devices not written exactly once, by address (missing ones as 0), or written once with another
  /// device's values (-1: the state its `cfg` line logged does not name it `hall-<its minor>`, so the right
  /// number of writes went to the wrong devices): empty when every device got its own write, once.
  func notWrittenOnce() throws -> [String: Int] {
    let counts = try writeLog.counts()
    let states = Dictionary(
      try writeLog.writes().filter { $0.what == "cfg" }.map { ($0.address, $0.state ?? "") },
      uniquingKeysWith: { a, _ in a })
    var wrong: [String: Int] = [:]
    for i in 0..<count {
      let a = address(i)
      if counts[a] != 1 {
        wrong[a] = counts[a] ?? 0
      } else if states[a]?.contains("\"hall-\(3000 + i)\"") != true {
        wrong[a] = -1
      }
    }
    for (a, n) in counts where !(0..<count).map(address).contains(a) { wrong[a] = n }
    return wrong
  }
}
