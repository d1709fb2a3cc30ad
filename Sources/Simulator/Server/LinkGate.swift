/// What a served device's advertising loop waits on (`ServedDevice`): whether a link is up, and a revision
/// that moves whenever something the loop reacts to happens — a link opened or closed, or `poke()` (the
/// device entered or left its DFU bootloader). Waits are cancellable and never poll.
actor LinkGate {
  private enum Condition {
    case idle
    case changed(since: Int)
  }

  private var links = 0
  /// Moves on every `opened`, `closed` and `poke`.
  private(set) var revision = 0
  private var waiters: [Int: (condition: Condition, waiter: CheckedContinuation<Void, any Error>)] = [:]
  private var nextWaiter = 0
  /// Tasks in `waitForWaiters`, each with the count it waits for.
  private var watchers: [(count: Int, done: CheckedContinuation<Void, Never>)] = []

  var isLinked: Bool { links > 0 }
  /// Tasks waiting in `waitUntilIdle` or `waitForChange` (for tests).
  var waiting: Int { waiters.count }

  /// Returns once at least `count` tasks wait on the gate — for tests, that a waiter is parked rather than
  /// returned early, without polling `waiting`.
  func waitForWaiters(_ count: Int) async {
    guard waiters.count < count else { return }
    await withCheckedContinuation { watchers.append((count, $0)) }
  }

  func opened() {
    links += 1
    changed()
  }

  func closed() {
    links = max(0, links - 1)
    changed()
  }

  /// Something about the device changed that the advertising loop must see now (its role on the air).
  func poke() { changed() }

  /// Returns once no link is up (at once when none is).
  func waitUntilIdle() async throws { try await wait(for: .idle) }

  /// Returns once the revision differs from `since` (at once when it already does), or after `timeout`.
  nonisolated func waitForChange(since: Int, timeout: Duration?) async throws {
    guard let timeout else { return try await wait(for: .changed(since: since)) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await self.wait(for: .changed(since: since)) }
      group.addTask { try await Task.sleep(for: timeout) }
      // The first to finish ends the wait; the other is cancelled and its CancellationError discarded.
      try await group.next()
      group.cancelAll()
    }
  }

  private func holds(_ condition: Condition) -> Bool {
    switch condition {
    case .idle: links == 0
    case .changed(let since): revision != since
    }
  }

  private func changed() {
    revision += 1
    for (key, entry) in waiters where holds(entry.condition) {
      waiters.removeValue(forKey: key)
      entry.waiter.resume()
    }
  }

  private func wait(for condition: Condition) async throws {
    guard !holds(condition) else { return }
    nextWaiter += 1
    let key = nextWaiter
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
        // Runs on this actor before any cancel(key) can: a cancellation that came first is seen here.
        if Task.isCancelled {
          waiter.resume(throwing: CancellationError())
        } else {
          waiters[key] = (condition, waiter)
          let parked = waiters.count
          for watcher in watchers where watcher.count <= parked { watcher.done.resume() }
          watchers.removeAll { $0.count <= parked }
        }
      }
    } onCancel: {
      Task { await self.cancel(key) }
    }
  }

  private func cancel(_ key: Int) {
    waiters.removeValue(forKey: key)?.waiter.resume(throwing: CancellationError())
  }
}
