import Foundation
import JSON

/// One write a simulated device accepted: a `cfg` message applied (docs/protocols/kbeacon.md §6.2), a firmware
/// image installed by a DFU (docs/protocols/nordic-dfu.md §2), a link authenticated (§5: the device sets its
/// clock from the app's), a reset command's return to factory settings, or an AT device's set command
/// (`SimulatedATCommands`), as the shared write log records it.
public struct SimulatedWrite: Sendable, Hashable, Codable {
  /// The process that served the link (a gateway process on a shared simulated site).
  public var pid: Int32
  /// The link within that process: the device's nth link there (1-based) [I: pid and link together name a
  /// connection; an object address would be reused after the link ends].
  public var link: Int
  public var address: String
  /// "cfg", "firmware", "reset" (a reset command: factory settings; no keys, no state), "auth" (no keys) or "at"
  /// (a set command accepted, changed or not: the setting it names, `name`, `interval` or `txPower`; no state:
  /// an AT device's settings are kept in the state file only).
  public var what: String
  /// The keys the write carried (never their values: a `pwd` key is named, its password is not), sorted.
  public var keys: [String]
  /// The device as the write left it, as the state file holds a device (`SimulatorStateStore.entry`): the
  /// log is written ahead of the state file, so a process killed between the two leaves the write here and
  /// the next process to link to the device reads it back from the log (`SimulatorStateStore.newest`)
  /// [I: a gateway's death must not undo the device's flash write: the device lives on]. Like the state file
  /// it holds the device's password.
  public var state: String?

  public init(pid: Int32 = getpid(), link: Int, address: String, what: String, keys: [String], state: String? = nil) {
    (self.pid, self.link, self.address, self.what, self.keys) = (pid, link, address, what, keys.sorted())
    self.state = state
  }
}

/// The proof that no device was written twice, even when several processes serve one simulated site: every write a simulated device accepts,
/// appended — one JSON line — to a log beside the simulator's state file, by every process that serves the
/// fleet. The state file cannot show it: each process keeps its own copy of a device and the last save wins,
/// so two processes' writes showed as one; this log only ever grows.
///
/// Each line goes out in one `write(2)` on a descriptor opened with `O_APPEND`, so lines from several
/// processes never interleave or overwrite each other (the kernel moves the offset to the end and writes in
/// one step; a line is a few hundred bytes) [I]. It is appended before the device acknowledges the write,
/// as the state file is saved, so a process killed at any moment never leaves an acknowledged write out.
/// `sim reset` removes it with the state.
public struct SimulatorWriteLog: Sendable {
  public let path: String

  public init(path: String) { self.path = path }

  /// Appends `write` as one line (blocking: call it off the cooperative pool).
  public func append(_ write: SimulatedWrite) throws {
    let line = Array(try JSONValueEncoder(sortedKeys: true).text(write).utf8) + [UInt8(ascii: "\n")]
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw SimulatorStateStore.StateError("cannot open \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    guard written == line.count else {
      throw SimulatorStateStore.StateError("cannot append to \(path): \(String(cString: strerror(errno)))")
    }
  }

  /// Every write logged so far, in the order appended; none when there is no log. A line that is not a
  /// write (a torn last line cannot happen with one `write(2)`, but a hand-edited file can) is refused.
  public func writes() throws -> [SimulatedWrite] { try decodedLines { _ in true } }

  /// The writes that carry the device's state (`SimulatedWrite.state`, every `cfg`), in the order appended.
  /// Only lines that name a state are decoded: the log also holds a line for every link's authentication,
  /// and `SimulatorStateStore.newest` reads the log before each link of a shared site.
  public func savedStates() throws -> [SimulatedWrite] {
    let key = Data(#""state""#.utf8)
    return try decodedLines { $0.range(of: key) != nil }.filter { $0.state != nil }
  }

  /// The log's lines that `keep` accepts (as raw bytes), decoded.
  private func decodedLines(where keep: (Data) -> Bool) throws -> [SimulatedWrite] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    let decoder = JSONFileDecoder(file: path)
    return try data.split(separator: UInt8(ascii: "\n")).enumerated().compactMap { index, line in
      guard keep(line) else { return nil }
      do { return try decoder.decode(SimulatedWrite.self, from: line) } catch {
        throw SimulatorStateStore.StateError("line \(index + 1) is not a simulated write: \(error)")
      }
    }
  }

  /// How many writes each device accepted, by address.
  public func counts(what: String = "cfg") throws -> [String: Int] {
    try writes().filter { $0.what == what }.reduce(into: [:]) { $0[$1.address, default: 0] += 1 }
  }

  /// Removes the log. Returns whether there was one.
  @discardableResult
  public func remove() throws -> Bool {
    guard FileManager.default.fileExists(atPath: path) else { return false }
    try FileManager.default.removeItem(atPath: path)
    return true
  }
}

extension SimulatorStateStore {
  /// The write log of this fleet: the state file's path with `.writes.jsonl` for `.json`.
  public var writeLog: SimulatorWriteLog {
    SimulatorWriteLog(path: (path.hasSuffix(".json") ? String(path.dropLast(5)) : path) + ".writes.jsonl")
  }
}
