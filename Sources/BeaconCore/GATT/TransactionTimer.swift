/// The clock that measures a `GATTClient`'s transaction timeout (Core v5.4 Vol 3 Part F §3.3.3), reduced to
/// what the client's one watchdog needs: the time since the client was made, and a sleep until a given
/// time since then. It hides the clock's own `Instant` type, so the client can hold any `Clock<Duration>`
/// (the continuous clock, or a test's manual one) without being generic over it.
struct TransactionTimer: Sendable {
  /// Time since the client was made, on the clock.
  let elapsed: @Sendable () -> Duration
  /// Sleeps until `elapsed()` reaches the value; throws `CancellationError` when the task is cancelled.
  let sleepUntil: @Sendable (Duration) async throws -> Void

  init<C: Clock<Duration>>(_ clock: C) {
    let origin = clock.now
    elapsed = { origin.duration(to: clock.now) }
    sleepUntil = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
  }
}

extension GATTClient {
  /// The transaction timeout's one sleeping task per link (not one per request): it sleeps until the
  /// outstanding request's deadline, then looks again. A request answered in time leaves it asleep; when it
  /// wakes it finds the next request (and sleeps on to that one's deadline) or none (and ends; the next
  /// request starts it again). So a link's requests cost no timer of their own — at 16 links, a timer task
  /// started and cancelled per request was a pool job, a wake of libdispatch's timer thread and a
  /// cancellation job for every round trip (`perf`, `provision-bench apply-scaling`).
  func watchTransactions() async {
    while let current = outstandingDeadline() {
      if timer.elapsed() >= current.deadline {
        await transactionTimedOut(current.id)
        continue
      }
      do {
        try await timer.sleepUntil(current.deadline)
      } catch {
        break  // cancelled: the client has ended
      }
    }
    watchdogStopped()
  }
}
