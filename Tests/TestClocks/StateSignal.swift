import Synchronization

/// Tasks waiting for a condition on a test double's state: `wait(until:)` returns once the condition holds,
/// re-checked each time the double calls `changed()` after changing its state — a signal, not a poll.
public final class StateSignal: Sendable {
  public init() {}

  private struct Waiter {
    var condition: @Sendable () -> Bool
    var continuation: CheckedContinuation<Void, Never>
  }

  private let waiters = Mutex<[Waiter]>([])

  public func wait(until condition: @escaping @Sendable () -> Bool) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      // Checked under the lock `changed()` takes, so a change cannot slip between the check and the append.
      let holds = waiters.withLock { list -> Bool in
        if condition() { return true }
        list.append(Waiter(condition: condition, continuation: continuation))
        return false
      }
      if holds { continuation.resume() }
    }
  }

  public func changed() {
    let due = waiters.withLock { list -> [CheckedContinuation<Void, Never>] in
      let ready = list.filter { $0.condition() }.map(\.continuation)
      list.removeAll { $0.condition() }
      return ready
    }
    for continuation in due { continuation.resume() }
  }
}
