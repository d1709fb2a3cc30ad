import Synchronization

/// A `Clock` that only moves when the test calls `advance(by:)`, so the 30 s ATT transaction timeout is
/// tested without waiting. Shared by the test targets that drive timers (BeaconCoreTests, TextStreamTests).
public final class ManualClock: Clock {
  public init() {}

  public struct Instant: InstantProtocol {
    public var offset: Duration
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
  }

  private struct Sleeper {
    var id: Int
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private let state = Mutex<(now: Instant, sleepers: [Sleeper], nextID: Int)>((Instant(offset: .zero), [], 0))

  public var now: Instant { state.withLock { $0.now } }
  public var minimumResolution: Duration { .zero }
  /// Tasks currently sleeping on this clock.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }
  /// When the current sleepers are due, as offsets from the clock's start, earliest first.
  public var deadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline.offset).sorted() } }
  /// Signalled whenever a task starts sleeping or a sleeper is cancelled:
  /// `await clock.signal.wait { clock.sleeperCount > 0 }`.
  public let signal = StateSignal()

  /// Sleeps until `advance(by:)` passes `deadline`. A cancelled sleeper stops sleeping at once (it throws
  /// `CancellationError`), so `sleeperCount` and `deadlines` count live timers only.
  public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = state.withLock { s -> Int in
      s.nextID += 1
      return s.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        // Under the lock `onCancel` takes: a cancellation that came before the append is seen here, one
        // that comes after finds the sleeper.
        let outcome = state.withLock { s -> Result<Bool, CancellationError> in
          if Task.isCancelled { return .failure(CancellationError()) }
          if deadline <= s.now { return .success(true) }
          s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return .success(false)
        }
        switch outcome {
        case .failure(let error): continuation.resume(throwing: error)
        case .success(true): continuation.resume()
        case .success(false): signal.changed()
        }
      }
    } onCancel: {
      let cancelled = state.withLock { s -> Sleeper? in
        guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return s.sleepers.remove(at: index)
      }
      if let cancelled {
        cancelled.continuation.resume(throwing: CancellationError())
        signal.changed()
      }
    }
  }

  public func advance(by duration: Duration) {
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
