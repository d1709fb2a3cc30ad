import Foundation
import OwnThreads
import Synchronization
import Testing

/// `FileLock`, the one inter-process lock: a second holder (its own open file description, as another
/// process has) is told it waits and gets the lock only once the first unlocks; `lock` (blocking) and
/// `acquire` (on a thread of its own) take the same lock.
@Suite(.timeLimit(.minutes(1))) struct FileLockTests {
  final class Flag: Sendable {
    let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
  }

  @Test func aSecondHolderWaitsUntilTheFirstUnlocks() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("file-lock-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(!FileLock.isHeld(path))
    let first = try FileLock.lock(path, mode: 0o600)
    #expect(FileLock.isHeld(path))
    let waiting = Flag()
    let acquired = Flag()
    let second = Task {
      let lock = try await FileLock.acquire(path, whenWaiting: { waiting.set() })
      acquired.set()
      return lock
    }
    while !waiting.isSet { try await Task.sleep(for: .milliseconds(5)) }
    try await Task.sleep(for: .milliseconds(50))
    #expect(!acquired.isSet, "the second holder got the lock while the first held it")
    first.unlock()
    let lock = try await second.value
    #expect(FileLock.isHeld(path))
    lock.unlock()
    #expect(!FileLock.isHeld(path))
  }

  /// A holder that removes the lock file (a prune removing a package folder) must not leave two holders: the
  /// waiter it released and a newcomer that created a new file at the path. The waiter takes the lock again
  /// on the file the path names now, so the newcomer is the one that waits.
  @Test func aWaiterWhoseLockFileWasRemovedLocksTheFileThePathNamesNow() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-lock-\(UUID().uuidString)").path
    let path = folder + "/.lock"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let first = try FileLock.lock(path)
    let waiting = Flag()
    let second = Task {
      try await FileLock.acquire(
        path,
        makeParent: { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) },
        whenWaiting: { waiting.set() })
    }
    while !waiting.isSet { try await Task.sleep(for: .milliseconds(5)) }
    try FileManager.default.removeItem(atPath: folder)
    first.unlock()
    let lock = try await second.value
    #expect(FileManager.default.fileExists(atPath: path), "the waiter did not make the removed folder again")
    #expect(FileLock.isHeld(path), "the waiter holds a lock no path names: a newcomer would take the lock too")
    lock.unlock()
  }

  @Test func aLockFileThatCannotBeMadeIsNamedInTheError() {
    #expect(throws: FileLockError.self) { try FileLock.lock("/nonexistent-\(UUID().uuidString)/x.lock") }
  }
}
