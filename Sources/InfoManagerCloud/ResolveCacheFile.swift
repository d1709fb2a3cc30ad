import Foundation
import InfoManager

/// The resolve cache kept between runs: one JSON file (`ResolveCache`), written to a temporary file and
/// renamed over the old one so a reader never sees half a file. Info points only: no API key, credentials or
/// token is ever written. A file that cannot be read or decoded counts as an empty cache (it is only a
/// cache) and is replaced on the next save.
///
/// Blocking file I/O: callers on the cooperative pool run these through their blocking-I/O queue.
public struct ResolveCacheFile: Sendable, Hashable {
  public var path: String

  public init(path: String) { self.path = path }

  public func load() -> ResolveCache {
    guard let data = FileManager.default.contents(atPath: path),
      let cache = try? JSONDecoder().decode(ResolveCache.self, from: data)
    else { return ResolveCache() }
    return cache
  }

  public func save(_ cache: ResolveCache) throws {
    let folder = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let temporary = path + ".tmp-\(getpid())"
    try encoder.encode(cache).write(to: URL(fileURLWithPath: temporary))
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot replace \(path): \(reason)"])
    }
  }
}
