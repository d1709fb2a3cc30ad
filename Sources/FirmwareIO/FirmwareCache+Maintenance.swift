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
  /// hardware version, every package but the `keep` newest (0: all of them). Returns what was removed.
  ///
  /// Several processes share the cache, so each folder is judged again under its lock, not from the listing
  /// taken before: a fetch in progress is waited for, not cut, and a package it completed since the listing
  /// is newer than any listed one, so it stays. A folder is removed by first renaming it out of the package
  /// tree (to `<root>/.pruned-<random>`, taking its `.lock` with it), so a process waiting on that lock finds
  /// the path empty and starts a new folder (`FileLock`), and a newcomer never writes into a folder being
  /// deleted. A `.pruned-` folder left by a prune that was killed is removed by the next one.
  public func prune(keep: Int) async throws -> [String] {
    let root = layout.packagesDirectory
    let trashRoot = layout.root
    let listed = try await list()
    let folderOf = { (p: CachedPackage) in (p.path as NSString).deletingLastPathComponent }
    // Each listed package by its folder and its record's fetch time: a folder removed and fetched again since
    // the listing (by other processes) holds another package, which is not judged by the old one.
    let seen = Dictionary(listed.map { (folderOf($0), $0.fetchedAt) }, uniquingKeysWith: { a, _ in a })
    let kept = Set(
      listed.reduce(into: [String: [CachedPackage]]()) { groups, p in
        groups["\(p.model)\u{0}\(p.hardware)", default: []].append(p)
      }.values.flatMap { $0.suffix(keep).map(folderOf) })
    try await CacheIO.run { Self.removeTrash(trashRoot) }
    var removed: [String] = []
    for folder in try await CacheIO.run({ Self.versionFolders(root) }) {
      let lock: FileLock
      do {
        lock = try await FileLock.acquire(folder + "/.lock")
      } catch {
        // Another prune removed the folder since the listing: nothing left to judge.
        if !DurableFile.exists(folder) { continue }
        throw error
      }
      let gone: [String]
      do { gone = try await judgeFolder(folder, seen: seen, kept: kept, trashRoot: trashRoot) } catch {
        lock.unlock()
        // What was removed before the folder that could not be is said too, not lost with the error.
        if removed.isEmpty { throw error }
        throw FirmwareCacheError("\(error) (removed before it: \(removed.joined(separator: ", ")))")
      }
      lock.unlock()
      removed += gone
    }
    return removed
  }

  /// One folder under its lock: removed (renamed out of the tree first) when unfinished, or listed and not
  /// kept; else only its leftovers (`.part`, `.tmp-`) go. Returns what was removed.
  /// `seen`, `kept`, `trashRoot`: as `prune` computed them.
  private func judgeFolder(
    _ folder: String, seen: [String: Date], kept: Set<String>, trashRoot: String
  ) async throws -> [String] {
    try await CacheIO.run { () -> [String] in
      let record = RecordCoding.decode(CachedPackage.self, path: folder + "/package.json")
      let complete = record.map { DurableFile.exists(folder + "/" + $0.appFileName) } ?? false
      let listedAndDropped = seen[folder] != nil && seen[folder] == record?.fetchedAt && !kept.contains(folder)
      if !complete || listedAndDropped {
        let trash = trashRoot + "/.pruned-\(UInt64.random(in: 0...UInt64.max))"
        do {
          try FileManager.default.moveItem(atPath: folder, toPath: trash)
        } catch {
          throw FirmwareCacheError("cannot remove \(folder): \(error.localizedDescription)")
        }
        try? FileManager.default.removeItem(atPath: trash)
        return [folder]
      }
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
      return names.filter { $0.hasSuffix(".part") || $0.contains(".tmp-") }.map { folder + "/" + $0 }.filter {
        (try? FileManager.default.removeItem(atPath: $0)) != nil
      }
    }
  }

  /// Removes the `.pruned-` folders a killed prune left in `root`.
  static func removeTrash(_ root: String) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where name.hasPrefix(".pruned-") {
      try? FileManager.default.removeItem(atPath: root + "/" + name)
    }
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
