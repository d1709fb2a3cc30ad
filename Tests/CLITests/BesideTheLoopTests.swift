import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// `reconcile`'s registry writes beside its loop: one at a time, a start while one runs is skipped (not
/// queued), and the next start after it ended runs.
@Suite(.timeLimit(.minutes(1))) struct BesideTheLoopTests {
  @Test func aStartWhileTheLastRunsIsSkippedAndTheNextAfterItRuns() async throws {
    let beside = BesideTheLoop()
    let (release, released) = AsyncStream.makeStream(of: Void.self)
    let ran = Mutex(0)
    #expect(
      beside.start {
        for await _ in release { break }
        ran.withLock { $0 += 1 }
      })
    #expect(!beside.start { ran.withLock { $0 += 100 } })
    released.yield()
    // The first write ends; then a start runs again.
    while ran.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
    var started = false
    while !started {
      started = beside.start { ran.withLock { $0 += 10 } }
      if !started { try await Task.sleep(for: .milliseconds(10)) }
    }
    while ran.withLock({ $0 }) < 11 { try await Task.sleep(for: .milliseconds(10)) }
    #expect(ran.withLock { $0 } == 11, "the skipped write ran")
    #expect(beside.started == 2 && beside.skipped >= 1)
    // `wait` (reconcile --once) returns once the write in progress has ended.
    let (gate, opened) = AsyncStream.makeStream(of: Void.self)
    while !beside.start({
      for await _ in gate { break }
      ran.withLock { $0 += 1000 }
    }) { try await Task.sleep(for: .milliseconds(10)) }
    let waiting = Task { await beside.wait() }
    opened.yield()
    await waiting.value
    #expect(ran.withLock { $0 } == 1011)
  }

  /// A stop (`wait(atMost:)`) waits for a write that ends in time, and gives up on one that does not (a
  /// journal server that stopped answering), reporting which.
  @Test func aStopWaitsForAWriteInProgressOnlyForItsBound() async throws {
    let beside = BesideTheLoop()
    let (gate, opened) = AsyncStream.makeStream(of: Void.self)
    let done = Mutex(false)
    #expect(
      beside.start {
        for await _ in gate { break }
        done.withLock { $0 = true }
      })
    #expect(await beside.wait(atMost: 0.2) == false, "a write still held was reported finished")
    #expect(!done.withLock { $0 })
    let waiting = Task { await beside.wait(atMost: 60) }
    opened.yield()
    #expect(await waiting.value == true)
    #expect(done.withLock { $0 }, "wait(atMost:) returned before the write ended")
    #expect(await BesideTheLoop().wait(atMost: 0), "nothing running: nothing to wait for")
  }
}
