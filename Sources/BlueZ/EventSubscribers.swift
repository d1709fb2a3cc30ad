import Synchronization

/// The consumers of a socket's events: each `subscribe()` gets its own stream; `broadcast` yields to all;
/// `finish` ends them all, and later subscribers get a finished stream.
final class EventSubscribers<Event: Sendable>: Sendable {
  private struct State {
    var next = 0
    var all: [Int: AsyncStream<Event>.Continuation] = [:]
    var finished = false
  }

  private let state = Mutex(State())

  func subscribe() -> AsyncStream<Event> {
    let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(1024))
    let id = state.withLock { state -> Int? in
      guard !state.finished else { return nil }
      state.next += 1
      state.all[state.next] = continuation
      return state.next
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.all.removeValue(forKey: id) }
    }
    return stream
  }

  func broadcast(_ event: Event) {
    for continuation in state.withLock({ Array($0.all.values) }) { continuation.yield(event) }
  }

  func finish() {
    let all = state.withLock { state -> [AsyncStream<Event>.Continuation] in
      state.finished = true
      defer { state.all = [:] }
      return Array(state.all.values)
    }
    for continuation in all { continuation.finish() }
  }
}
