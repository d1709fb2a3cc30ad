import Dispatch
import Synchronization

/// Callers waiting for the reply to a command, keyed by what identifies the reply (the HCI opcode, or the
/// mgmt opcode and controller index). Replies resolve the oldest waiter for their key; a waiter not
/// answered in time fails with `timeoutError`; a cancelled waiter fails with `CancellationError`.
final class PendingReplies<Key: Hashable & Sendable, Reply: Sendable>: Sendable {
  private struct Waiter {
    var id: UInt64
    var continuation: CheckedContinuation<Reply, any Error>
  }

  private struct State {
    var nextID: UInt64 = 0
    var waiters: [Key: [Waiter]] = [:]
    var closedError: (any Error)?
  }

  private let state = Mutex(State())

  /// Registers a waiter for `key`, then calls `send` (so a fast reply cannot be missed), then waits.
  func wait(
    for key: Key, timeout: Duration, timeoutError: @escaping @Sendable () -> any Error,
    send: () throws -> Void
  ) async throws -> Reply {
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
        let closed = state.withLock { state -> (any Error)? in
          if let error = state.closedError { return error }
          if Task.isCancelled { return CancellationError() }
          state.waiters[key, default: []].append(Waiter(id: id, continuation: continuation))
          return nil
        }
        if let closed {
          continuation.resume(throwing: closed)
          return
        }
        do {
          try send()
        } catch {
          fail(key: key, id: id, with: error)
          return
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
          fail(key: key, id: id, with: timeoutError())
        }
      }
    } onCancel: {
      fail(key: key, id: id, with: CancellationError())
    }
  }

  /// Hands `reply` to the oldest waiter for `key`; false when nobody waits for it.
  @discardableResult
  func resolve(_ key: Key, with reply: Reply) -> Bool {
    let waiter = state.withLock { state -> Waiter? in
      guard var queue = state.waiters[key], !queue.isEmpty else { return nil }
      let first = queue.removeFirst()
      state.waiters[key] = queue.isEmpty ? nil : queue
      return first
    }
    waiter?.continuation.resume(returning: reply)
    return waiter != nil
  }

  /// Fails every waiter, now and later, with `error` (the socket closed).
  func close(with error: any Error) {
    let all = state.withLock { state -> [Waiter] in
      state.closedError = error
      defer { state.waiters = [:] }
      return state.waiters.values.flatMap { $0 }
    }
    for waiter in all { waiter.continuation.resume(throwing: error) }
  }

  private func fail(key: Key, id: UInt64, with error: any Error) {
    let waiter = state.withLock { state -> Waiter? in
      guard var queue = state.waiters[key], let i = queue.firstIndex(where: { $0.id == id }) else { return nil }
      let found = queue.remove(at: i)
      state.waiters[key] = queue.isEmpty ? nil : queue
      return found
    }
    waiter?.continuation.resume(throwing: error)
  }
}
