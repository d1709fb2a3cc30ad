/// A clock reduced to what a one-sleeper watchdog needs: the time since its owner was made, and a sleep until
/// a given time since then. Used by `GATTClient`'s transaction timeout (Core v5.4 Vol 3 Part F §3.3.3) and
/// `MessageInbox`'s receive timeout, each of which keeps one sleeping task per link rather than one per
/// request. It hides the clock's own `Instant` type, so its owner can hold any `Clock<Duration>` (the
/// continuous clock, or a test's manual one) without being generic over it.
struct WatchdogClock: Sendable {
  /// Time since the owner was made, on the clock.
  let elapsed: @Sendable () -> Duration
  /// Sleeps until `elapsed()` reaches the value; throws `CancellationError` when the task is cancelled.
  let sleepUntil: @Sendable (Duration) async throws -> Void

  init<C: Clock<Duration>>(_ clock: C) {
    let origin = clock.now
    elapsed = { origin.duration(to: clock.now) }
    sleepUntil = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
  }
}
