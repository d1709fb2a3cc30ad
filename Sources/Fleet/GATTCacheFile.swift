import BeaconCore
import Foundation
import OwnThreads

#if canImport(Glibc)
  import Glibc
#endif

/// The GATT cache kept between runs in the state directory (`gatt-cache.json`), shared by every process
/// using that directory (several gateways on one host, a `read` during an `apply`).
///
/// - Format (`GATTCacheFileFormat`): JSON, `{"version": 1, "devices": {"AA:BB:CC:DD:EE:FF/random": {…}}}`.
/// - Read once, when first asked, into memory; a file that cannot be read or decoded is an empty cache
///   (it is only a cache), reported through `warn` and replaced by the next write.
/// - Writes: under an exclusive `flock(2)` of `<path>.lock` (`OwnThreads.FileLock`, the firmware cache's
///   lock), the file is read again, only this process's changes (saved or dropped entries) are applied,
///   and the result is written to a temporary file renamed over the old one, so a reader never sees half a
///   file and no process loses another's entries. Not fsynced [I]: after a power loss an old or missing
///   cache only costs a discovery.
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

  /// The cache file of a state directory.
  public static func path(stateDirectory: String) -> String { stateDirectory + "/gatt-cache.json" }

  public init(path: String, warn: @escaping @Sendable (String) -> Void = { _ in }) {
    self.path = path
    self.warn = warn
  }

  public func entry(for key: GATTCacheKey) async -> GATTCacheEntry? {
    if entries == nil {
      let loaded = await OwnThread.run("gatt-cache") { [path, warn] in Self.read(path, warn: warn) }
      if entries == nil { entries = loaded }
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
      do {
        // The lock file lives beside the cache: its folder first (a fresh state directory has none yet).
        try await OwnThread.run("gatt-cache") { [path] in
          try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        let lock = try await FileLock.acquire(path + ".lock")
        await OwnThread.run("gatt-cache") { [path, warn] in
          defer { lock.unlock() }
          var current = Self.read(path, warn: { _ in })
          for (key, change) in batch { current[key] = change }
          do {
            try Self.write(current, to: path)
          } catch {
            warn("the GATT cache \(path) cannot be written (\(error)); devices are discovered as without it")
          }
        }
      } catch {
        warn("the GATT cache \(path) cannot be locked (\(error)); devices are discovered as without it")
      }
      written = upTo
    }
    writer = nil
  }

  /// The file's entries; empty when it is missing or damaged (`warn` says so for a damaged one).
  static func read(_ path: String, warn: (String) -> Void) -> [GATTCacheKey: GATTCacheEntry] {
    guard let data = FileManager.default.contents(atPath: path) else { return [:] }
    do {
      return try GATTCacheFileFormat.decode(Array(data), file: path)
    } catch {
      warn("\(error): the GATT cache cannot be read; starting without it, the file is replaced on the next write")
      return [:]
    }
  }

  /// Writes `entries` to a temporary name and renames it over `path` (mode 0600).
  static func write(_ entries: [GATTCacheKey: GATTCacheEntry], to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
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
