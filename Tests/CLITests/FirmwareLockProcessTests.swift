import FirmwareIO
import Foundation
import OwnThreads
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// Two processes fetching one package: this test holds the package folder's flock (as a fetch in progress
/// does) and starts `beacon-provision firmware fetch` as a real second process; it says it is waiting for
/// the lock and has written no package while it waits; once the lock is released it fetches and verifies
/// the package and exits 0, and the cache holds exactly one verified copy.
@Suite(.timeLimit(.minutes(2))) struct FirmwareLockProcessTests {
  @Test func aSecondProcessWaitsForThePackagesLock() async throws {
    let root = NSTemporaryDirectory() + "fw-lock-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let folder = root + "/packages/KBPro_SIM/V1.0/5.14"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let held = try await FileLock.acquire(folder + "/.lock")

    let fetch = try ChildProcess.start(
      ApplyCrashTests.binary,
      [
        "firmware", "fetch", "KBPro_SIM", "--hver", "V1.0", "--catalog", CatalogueFolderCampaignTests.example,
        "--firmware-dir", root,
      ], output: .discarded)
    var iterator = try #require(fetch.errors).makeAsyncIterator()
    var waiting = false
    while let line = await iterator.next() {
      if line.contains("another fetch holds \(folder)/.lock; waiting for it") {
        waiting = true
        break
      }
    }
    #expect(waiting)
    #expect(!FileManager.default.fileExists(atPath: folder + "/KBPro_SIM_V514.zip"))
    held.unlock()
    while await iterator.next() != nil {}
    #expect(await fetch.wait() == 0)
    let listed = try await FirmwareCache.inFolder(root).list()
    #expect(listed.map(\.sha256) == ["5aeee5c44ffa910a3e6641526c992fcdb47a0b87a3663713a54690cf74e8f92e"])
  }
}
