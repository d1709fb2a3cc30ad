import Synchronization

/// Tasks waiting for a condition on a test double's state: `wait(until:)` returns once the condition holds,
/// re-checked each time the double calls `changed()` after changing its state — a signal, not a poll.
///
/// A wait ends when its task is cancelled, too (the condition may then not hold). Swift Testing cancels a
/// test that passes its `.timeLimit`; a wait deaf to that kept the test — and with it the whole test
/// process — waiting for ever: a loaded run stopped printing at 15:37 with one test past its limit, every
/// other test done, and no thread left running (the cause of the watcher's "no output for 300 s").
public final class StateSignal: Sendable {
  public init() {}

  private struct Waiter {
    var id: Int
    var condition: @Sendable () -> Bool
    var continuation: CheckedContinuation<Void, Never>
  }

  private struct State {
    var waiters: [Waiter] = []
    var nextID = 0
    /// Waits cancelled before they were registered.
    var cancelled: Set<Int> = []
  }

  private let state = Mutex(State())

  public func wait(until condition: @escaping @Sendable () -> Bool) async {
    let id = state.withLock { s in
      s.nextID += 1
      return s.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        // Checked under the lock `changed()` takes, so a change cannot slip between the check and the append.
        let holds = state.withLock { s -> Bool in
          if condition() || s.cancelled.remove(id) != nil { return true }
          s.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
          return false
        }
        if holds { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { s -> Waiter? in
        guard let index = s.waiters.firstIndex(where: { $0.id == id }) else {
          s.cancelled.insert(id)
          return nil
        }
        return s.waiters.remove(at: index)
      }
      waiter?.continuation.resume()
    }
    state.withLock { _ = $0.cancelled.remove(id) }
  }

  public func changed() {
    let due = state.withLock { s -> [CheckedContinuation<Void, Never>] in
      let ready = s.waiters.filter { $0.condition() }.map(\.continuation)
      s.waiters.removeAll { $0.condition() }
      return ready
    }
    for continuation in due { continuation.resume() }
  }
}
