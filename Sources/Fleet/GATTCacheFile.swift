import BeaconCore
import Foundation
import OwnThreads

#if canImport(Glibc)
  import Glibc
#endif

/// The GATT cache kept between runs in the state directory (`gatt-cache.jsonl`), shared by every process
/// using that directory (several gateways on one host, a `read` during an `apply`).
///
/// - Format (`GATTCacheFileFormat`): JSON Lines, a header and one record per saved or dropped entry.
/// - Read once, when first asked, into memory; a file whose header cannot be read is an empty cache (it is
///   only a cache), reported through `warn` and replaced by the next write; a record that cannot be read is
///   reported and skipped.
/// - Writes, under an exclusive `flock(2)` of `<path>.lock` (`OwnThreads.FileLock`, the firmware cache's
///   lock), so no process loses another's records: this process's changes are appended, one line each (a
///   line a crash left without its newline is ended first), so a save costs the same for ten devices as
///   for ten thousand. When the file holds more than twice as many records as devices (plus 64), the write
///   compacts it instead: the file is read again, the changes applied, and the result written to a
///   temporary file renamed over the old one, so a reader never sees half a file. Not fsynced [I]: after a
///   power loss an old or missing cache only costs a discovery.
/// - A `save` or `drop` returns once its change is in the file; changes made while a write is under way
///   go together in the next one, so many links at once cost few writes.
public actor GATTCacheFile: GATTCacheStore {
  public nonisolated let path: String
  private let warn: @Sendable (String) -> Void
  private var entries: [GATTCacheKey: GATTCacheEntry]?
  private var pending: [GATTCacheKey: GATTCacheEntry?] = [:]
  private var queued = 0
  private var written = 0
  private var writer: Task<Void, Never>?
  /// Records the file holds as far as this process knows (what it read plus what it appended), and whether
  /// it must be rewritten whole (its header was refused).
  private var records = 0
  private var rewrite = false
  /// Whether this actor made (or found) the file's folder: a save then costs no extra thread hop.
  private var folderMade = false

  /// The cache file of a state directory.
  public static func path(stateDirectory: String) -> String { stateDirectory + "/gatt-cache.jsonl" }

  public init(path: String, warn: @escaping @Sendable (String) -> Void = { _ in }) {
    self.path = path
    self.warn = warn
  }

  public func entry(for key: GATTCacheKey) async -> GATTCacheEntry? {
    if entries == nil {
      let loaded = await OwnThread.run("gatt-cache") { [path, warn] in Self.read(path, warn: warn) }
      if entries == nil {
        entries = loaded?.entries ?? [:]
        records = loaded?.records ?? 0
        rewrite = loaded == nil
      }
    }
    return entries?[key]
  }

  public func save(_ entry: GATTCacheEntry) async { await record(entry.key, entry) }

  public func drop(_ key: GATTCacheKey) async { await record(key, nil) }

  private func record(_ key: GATTCacheKey, _ entry: GATTCacheEntry?) async {
    entries?[key] = entry
    pending[key] = .some(entry)
    queued += 1
    let mine = queued
    if writer == nil { writer = Task { await self.writeLoop() } }
    while written < mine, let running = writer { await running.value }
  }

  private func writeLoop() async {
    while !pending.isEmpty {
      let batch = pending
      let upTo = queued
      pending = [:]
      let compact = rewrite || records + batch.count > 2 * (entries?.count ?? 0) + 64
      do {
        // The lock file lives beside the cache: its folder first (a fresh state directory has none yet),
        // made once, and again after a write that could not lock (the folder may have been removed).
        if !folderMade {
          try await OwnThread.run("gatt-cache") { [path] in
            try FileManager.default.createDirectory(
              atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
          }
          folderMade = true
        }
        let lock = try await FileLock.acquire(path + ".lock")
        let stored = await OwnThread.run("gatt-cache") { [path, warn] () -> Int? in
          defer { lock.unlock() }
          do {
            guard compact else { return try Self.append(batch, to: path) }
            var current = Self.read(path, warn: { _ in })?.entries ?? [:]
            for (key, change) in batch { current[key] = change }
            try Self.write(current, to: path)
            return current.count
          } catch {
            warn("the GATT cache \(path) cannot be written (\(error)); devices are discovered as without it")
            return nil
          }
        }
        if let stored {
          records = compact ? stored : records + stored
          if compact { rewrite = false }
        }
      } catch {
        folderMade = false
        warn("the GATT cache \(path) cannot be locked (\(error)); devices are discovered as without it")
      }
      written = upTo
    }
    writer = nil
  }

  /// The file's contents: empty when it is missing, nil when its header is refused (`warn` says so, as it
  /// does for each record skipped).
  static func read(_ path: String, warn: (String) -> Void) -> GATTCacheFileFormat.Contents? {
    guard let data = FileManager.default.contents(atPath: path) else { return GATTCacheFileFormat.Contents() }
    do {
      let contents = try GATTCacheFileFormat.decode(Array(data), file: path)
      for problem in contents.skipped { warn("\(problem): this record of the GATT cache is skipped") }
      return contents
    } catch {
      warn("\(error): the GATT cache cannot be read; starting without it, the file is replaced on the next write")
      return nil
    }
  }

  /// Appends one record per change to `path` (the header first when the file is new or empty, a newline
  /// first when its last line was left unfinished); the number of records appended.
  static func append(_ batch: [GATTCacheKey: GATTCacheEntry?], to path: String) throws -> Int {
    let fd = Interrupted.retry { open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600) }
    guard fd >= 0 else { throw GATTCacheFileError("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      throw GATTCacheFileError("cannot examine \(path): \(String(cString: strerror(errno)))")
    }
    var bytes: [UInt8] = []
    if status.st_size == 0 {
      bytes = try GATTCacheFileFormat.header()
    } else {
      var last: UInt8 = 0
      if Interrupted.retry({ pread(fd, &last, 1, off_t(status.st_size - 1)) }) == 1, last != 0x0A { bytes = [0x0A] }
    }
    for (key, change) in batch.sorted(by: { $0.key.description < $1.key.description }) {
      bytes += try GATTCacheFileFormat.record(key, change)
    }
    guard Interrupted.writeAll(fd, bytes) else {
      throw GATTCacheFileError("cannot append to \(path): \(String(cString: strerror(errno)))")
    }
    return batch.count
  }

  /// Writes a file of `entries` alone to a temporary name and renames it over `path` (mode 0600).
  static func write(_ entries: [GATTCacheKey: GATTCacheEntry], to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let temporary = TemporaryFileName.beside(path)
    guard
      FileManager.default.createFile(
        atPath: temporary, contents: Data(try GATTCacheFileFormat.encode(entries)),
        attributes: [.posixPermissions: 0o600])
    else { throw GATTCacheFileError("cannot write \(temporary)") }
    guard rename(temporary, path) == 0 else {
      let error = GATTCacheFileError("cannot replace \(path): \(String(cString: strerror(errno)))")
      unlink(temporary)
      throw error
    }
  }
}

/// A GATT cache file that cannot be written or decoded, in one line.
public struct GATTCacheFileError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
