import Firmware
import Foundation
import OwnThreads
import Profiles

/// `firmware list` and `firmware prune`: what the cache holds, and clearing what is no longer needed.
extension FirmwareCache {
  /// Every package in the cache with its record (model, hardware, version, SHA-256, size, source, time),
  /// sorted by model, hardware and version. Folders without a record (a fetch that never finished) are
  /// left out; `prune` removes them.
  public func list() async throws -> [CachedPackage] {
    let root = layout.packagesDirectory
    return try await CacheIO.run {
      Self.versionFolders(root).compactMap { folder -> CachedPackage? in
        guard var record = RecordCoding.decode(CachedPackage.self, path: folder + "/package.json") else { return nil }
        record.path = folder + "/" + record.appFileName
        return DurableFile.exists(record.path) ? record : nil
      }.sorted { a, b in
        (a.model, a.hardware) != (b.model, b.hardware)
          ? (a.model, a.hardware) < (b.model, b.hardware)
          : (FirmwareVersion(a.appVersion) ?? FirmwareVersion("0")!)
            < (FirmwareVersion(b.appVersion) ?? FirmwareVersion("0")!)
      }
    }
  }

  /// Removes unfinished downloads (`.part` files and folders without a record) and, per model and
  /// hardware version, every package but the `keep` newest (0: all of them). Each package folder is
  /// removed under its lock, so a fetch in progress is waited for, not cut. Returns what was removed.
  public func prune(keep: Int) async throws -> [String] {
    let root = layout.packagesDirectory
    let kept = Set(
      try await list().reduce(into: [String: [CachedPackage]]()) { groups, p in
        groups["\(p.model)\u{0}\(p.hardware)", default: []].append(p)
      }.values.flatMap { $0.suffix(keep).map { ($0.path as NSString).deletingLastPathComponent } })
    var removed: [String] = []
    for folder in try await CacheIO.run({ Self.versionFolders(root) }) {
      let lock = try await FileLock.acquire(folder + "/.lock")
      let gone = try await CacheIO.run { () -> [String] in
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        if !kept.contains(folder) {
          try? FileManager.default.removeItem(atPath: folder)
          return [folder]
        }
        return names.filter { $0.hasSuffix(".part") || $0.contains(".tmp-") }.map { folder + "/" + $0 }.filter {
          (try? FileManager.default.removeItem(atPath: $0)) != nil
        }
      }
      lock.unlock()
      removed += gone
    }
    return removed
  }

  /// `packages/<model>/<hver>/<version>` folders.
  static func versionFolders(_ root: String) -> [String] {
    func children(_ path: String) -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }.filter {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue
      }
    }
    return children(root).flatMap(children).flatMap(children)
  }
}
