import Firmware
import FirmwareIO
import Foundation
import OwnThreads
import Testing

/// `firmware prune` (`FirmwareCache+Maintenance`): the newest kept per model and hardware, leftovers removed,
/// and the folders other processes fetch while it runs judged under their locks.
@Suite(.timeLimit(.minutes(1))) struct FirmwareCachePruneTests {
  static func setUp() throws -> (FakeHTTPClient, FirmwareCatalogue, CatalogueLocation) {
    try FirmwareCacheTests.setUp()
  }
  static func temporaryRoot() -> String { FirmwareCacheTests.temporaryRoot() }

  /// A cache in a new folder (`root`, the caller's to remove) holding both V1.0 packages of the test catalogue.
  static func filled() async throws -> (FirmwareCache, root: String) {
    let (client, catalogue, location) = try Self.setUp()
    let root = Self.temporaryRoot()
    let cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
    for entry in catalogue.entries(hardware: "V1.0") {
      _ = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
    }
    return (cache, root)
  }

  @Test func pruneKeepsTheNewestAndRemovesLeftovers() async throws {
    let (cache, root) = try await Self.filled()
    defer { try? FileManager.default.removeItem(atPath: root) }
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/packages/KBPro_SIM/V1.0/5.14/KBPro_SIM_V514.zip.part"))
    #expect(try await cache.list().map(\.appVersion) == ["V5.13", "V5.14"])
    let removed = try await cache.prune(keep: 1)
    #expect(
      Set(removed) == [
        root + "/packages/KBPro_SIM/V1.0/5.13", root + "/packages/KBPro_SIM/V1.0/5.14/KBPro_SIM_V514.zip.part",
      ])
    #expect(try await cache.list().map(\.appVersion) == ["V5.14"])
    _ = try await cache.prune(keep: 0)
    #expect(try await cache.list().isEmpty)
    let left = try FileManager.default.contentsOfDirectory(atPath: root)
    #expect(!left.contains { $0.hasPrefix(".pruned-") }, "\(left)")
  }

  /// Another process's fetch holds a package folder's lock while `prune` runs: prune waits for it, and a package
  /// that fetch completed is newer than the listing prune started from, so it stays.
  @Test func pruneKeepsAPackageAFetchCompletedWhilePruneWaited() async throws {
    let (cache, root) = try await Self.filled()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let base = root + "/packages/KBPro_SIM/V1.0/"
    try FileManager.default.createDirectory(atPath: base + "5.15", withIntermediateDirectories: true)
    let fetch = try FileLock.lock(base + "5.15/.lock")
    let prune = Task { try await cache.prune(keep: 1) }
    while FileManager.default.fileExists(atPath: base + "5.13") { try await Task.sleep(for: .milliseconds(5)) }
    try await Task.sleep(for: .milliseconds(100))
    for name in ["package.json", "KBPro_SIM_V514.zip"] {
      try FileManager.default.copyItem(atPath: base + "5.14/" + name, toPath: base + "5.15/" + name)
    }
    fetch.unlock()
    let removed = try await prune.value
    #expect(removed == [base + "5.13"])
    #expect(
      FileManager.default.fileExists(atPath: base + "5.15/KBPro_SIM_V514.zip"), "a just-fetched package was pruned")
  }

  /// A listed folder that other processes removed and fetched again while `prune` waited holds another package
  /// (another fetch time): it stays, though the one listed there was to go. The folder before it (removed
  /// first) shows that prune has listed and reached the held lock.
  @Test func pruneKeepsAFolderFetchedAgainSinceItsListing() async throws {
    let (cache, root) = try await Self.filled()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let base = root + "/packages/KBPro_SIM/V1.0/"
    try FileManager.default.copyItem(atPath: base + "5.13", toPath: base + "5.12")
    let fetch = try FileLock.lock(base + "5.13/.lock")
    let prune = Task { try await cache.prune(keep: 1) }
    while FileManager.default.fileExists(atPath: base + "5.12") { try await Task.sleep(for: .milliseconds(5)) }
    // The record as a new fetch writes it: the same package, fetched later.
    let recordPath = base + "5.13/package.json"
    var record = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: recordPath))) as? [String: Any])
    switch record["fetchedAt"] {
    case let number as Double: record["fetchedAt"] = number + 60
    case let text as String:
      record["fetchedAt"] = text.hasPrefix("2030") ? "2031-01-01T00:00:00Z" : "2030-01-01T00:00:00Z"
    default: Issue.record("fetchedAt is \(String(describing: record["fetchedAt"]))")
    }
    try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: recordPath))
    fetch.unlock()
    let removed = try await prune.value
    #expect(removed == [base + "5.12"])
    #expect(try await cache.list().map(\.appVersion) == ["V5.13", "V5.14"])
  }
}
