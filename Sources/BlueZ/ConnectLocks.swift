import Synchronization

/// One LE connection attempt at a time per adapter (docs/protocols/linux-ble.md §4 item 5: parallel LE Create
/// Connection on one controller fails). A FIFO async lock per adapter name, shared process-wide.
final class ConnectLocks: Sendable {
  static let shared = ConnectLocks()

  private struct State {
    var busy: Set<String> = []
    var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
  }

  private let state = Mutex(State())

  /// Runs `body` while holding `adapter`'s lock.
  func withLock<T: Sendable>(_ adapter: String, _ body: () async throws -> T) async throws -> T {
    await acquire(adapter)
    defer { release(adapter) }
    return try await body()
  }

  private func acquire(_ adapter: String) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let free = state.withLock { state -> Bool in
        if state.busy.insert(adapter).inserted { return true }
        state.waiting[adapter, default: []].append(continuation)
        return false
      }
      if free { continuation.resume() }
    }
  }

  private func release(_ adapter: String) {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard var queue = state.waiting[adapter], !queue.isEmpty else {
        state.busy.remove(adapter)
        return nil
      }
      let first = queue.removeFirst()
      state.waiting[adapter] = queue.isEmpty ? nil : queue
      return first  // the lock passes straight to the next waiter
    }
    next?.resume()
  }
}
