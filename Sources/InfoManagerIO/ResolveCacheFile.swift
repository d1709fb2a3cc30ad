import BeaconCore
import Foundation
import InfoManager
import JSON
import OwnThreads

#if canImport(Glibc)
  import Glibc
#endif

/// The resolve cache kept between runs: one JSON file (`ResolveCache`), written to a temporary file and
/// renamed over the old one so a reader never sees half a file. Info points only: no API key, credentials or
/// token is ever written.
///
/// - A file that cannot be read or decoded counts as an empty cache (it is only a cache) and is replaced on
///   the next save; `load(warn:)` says so (it was dropped without a word).
/// - Runs at once: a save takes an exclusive `flock(2)` on `<path>.lock`, reads the file again and applies
///   only what this run changed (`ResolveCache.apply(changesFrom:to:)`), so no run's entries are lost.
///
/// Blocking file I/O and a blocking lock: callers on the cooperative pool run these on a thread of their own
/// (`BlockingIO`).
public struct ResolveCacheFile: Sendable, Hashable {
  public var path: String

  public init(path: String) { self.path = path }

  /// The cache in the file; an unreadable or corrupt file is an empty cache, reported through `warn`.
  public func load(warn: (String) -> Void = { _ in }) -> ResolveCache {
    guard let data = FileManager.default.contents(atPath: path) else { return ResolveCache() }
    do {
      return try JSONFileDecoder(file: path).decode(ResolveCache.self, from: data)
    } catch {
      warn(
        "\(error): the resolve cache cannot be read (not a cache this version wrote); starting with an empty cache, the file is replaced on the next save"
      )
      return ResolveCache()
    }
  }

  /// Saves what this run changed since `before` (the cache it loaded) on top of the file as it is now.
  public func save(_ cache: ResolveCache, since before: ResolveCache) throws {
    let folder = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let lock = try FileLock.lock(path + ".lock", mode: 0o600)
    defer { lock.unlock() }
    var current = load()
    current.apply(changesFrom: before, to: cache)
    let temporary = TemporaryFileName.beside(path)
    try Data(try JSONValueEncoder().text(current).utf8).write(to: URL(fileURLWithPath: temporary))
    guard rename(temporary, path) == 0 else {
      let error = Self.failure("cannot replace \(path)")
      unlink(temporary)
      throw error
    }
  }

  /// A file error with the system's reason, read from `errno` now.
  static func failure(_ what: String) -> any Error {
    let reason = String(cString: strerror(errno))
    return CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what): \(reason)"])
  }
}
