import Synchronization

/// A `Clock` that only moves when the test calls `advance(by:)`, so the 30 s ATT transaction timeout is
/// tested without waiting.
final class ManualClock: Clock {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
  }

  private struct Sleeper {
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private let state = Mutex<(now: Instant, sleepers: [Sleeper])>((Instant(offset: .zero), []))

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }
  /// Tasks currently sleeping on this clock.
  var sleeperCount: Int { state.withLock { $0.sleepers.count } }
  /// Signalled whenever a task starts sleeping: `await clock.signal.wait { clock.sleeperCount > 0 }`.
  let signal = StateSignal()

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let due = state.withLock { s -> Bool in
        if deadline <= s.now { return true }
        s.sleepers.append(Sleeper(deadline: deadline, continuation: continuation))
        return false
      }
      if due { continuation.resume() } else { signal.changed() }
    }
  }

  func advance(by duration: Duration) {
    let due = state.withLock { s -> [Sleeper] in
      s.now = s.now.advanced(by: duration)
      let now = s.now
      let due = s.sleepers.filter { $0.deadline <= now }
      s.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }
}
