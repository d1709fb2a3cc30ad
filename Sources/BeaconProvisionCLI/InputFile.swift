import Foundation

/// A file the operator names (a profile, an inventory, an events file, a fleet file, a header or password
/// file), read whole with a refusal that says what is wrong with the path: missing, a directory, unreadable
/// and why, or larger than any real site's file of its kind (`InputLimit`). Every one of them said "no such
/// file" — a folder given as a profile too — and a 500 MB profile was read whole (4.6 GB resident) before
/// anything looked at it (hostile-input review, "No size caps").
///
/// The size is checked from `fstat` before any byte is read, and the read itself stops one byte past the
/// cap, so a file that grows while it is read, or one whose size `stat` does not tell (a pipe, a device
/// such as /dev/zero), is refused after at most cap + 1 bytes instead of filling memory.
enum InputFile {
  /// The file's bytes; throws `CLIFailure` naming the path and the reason.
  static func read(_ path: String, limit: InputLimit) throws -> Data {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw CLIFailure("no such file: \(path)")
    }
    if isDirectory.boolValue { throw CLIFailure("\(path) is a directory, not a file") }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CLIFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
    let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    var status = stat()
    if fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) > limit.bytes {
      throw limit.refusal(path, size: "\(Int(status.st_size)) bytes")
    }
    let data: Data
    do {
      data = try handle.read(upToCount: limit.bytes + 1) ?? Data()
    } catch {
      throw CLIFailure("cannot read \(path): \(error.localizedDescription)")
    }
    if data.count > limit.bytes { throw limit.refusal(path, size: "more than \(limit.bytes) bytes") }
    return data
  }

  /// `read(path, limit:)` for a file that may be absent: nil when nothing is at `path` (a config file in
  /// its default place), the same refusals otherwise.
  static func readIfPresent(_ path: String, limit: InputLimit) throws -> Data? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    return try read(path, limit: limit)
  }
}

/// The largest file of one kind the tool reads (hostile-input review, "No size caps"). [I] Each cap is far above what a
/// real site writes — a profile is a few KB, an inventory of a million devices (address, two columns, a
/// tag) about 35 MB — and far below what makes the tool use gigabytes of memory (a file costs up to about
/// 20 times its size while it is decoded).
struct InputLimit: Sendable, Hashable {
  /// What the file is, for the message: "a profile".
  var kind: String
  var bytes: Int

  static let profile = InputLimit(kind: "a profile", bytes: 8 << 20)
  /// CSV or JSON; a million rows fit with room to spare.
  static let inventory = InputLimit(kind: "an inventory", bytes: 64 << 20)
  /// A simulated fleet; 100,000 devices with their configs fit.
  static let fleet = InputLimit(kind: "a fleet file", bytes: 64 << 20)
  static let events = InputLimit(kind: "an events file", bytes: 4 << 20)
  /// A config file (`config.json`, the Info Manager's).
  static let config = InputLimit(kind: "a config file", bytes: 1 << 20)
  /// A password, API key or header file, a public key in PEM: a few lines.
  static let smallText = InputLimit(kind: "a file of a few lines", bytes: 64 << 10)

  /// The refusal: the file, its size and the cap.
  func refusal(_ path: String, size: String) -> CLIFailure {
    CLIFailure(
      "\(path) is \(size); \(kind) larger than \(Self.describe(bytes)) is refused (no real site's comes near it)")
  }

  /// `8 MiB (8388608 bytes)`.
  static func describe(_ bytes: Int) -> String {
    let units = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
    guard let (size, unit) = units.first(where: { bytes >= $0.0 && bytes % $0.0 == 0 }) else { return "\(bytes) bytes" }
    return "\(bytes / size) \(unit) (\(bytes) bytes)"
  }
}
