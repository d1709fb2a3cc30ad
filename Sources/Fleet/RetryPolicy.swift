/// When to try a device again after a transient failure. The defaults follow KKM's batch tool's pacing
/// (docs/protocols/kbeacon.md §11: don't retry a beacon within 60 s of an attempt) scaled down for a single
/// run: 3 attempts, 5 s then 20 s apart [I]; operators and tests change them.
public struct RetryPolicy: Sendable, Hashable {
  public var maximumAttempts: Int
  public var firstDelay: Duration
  public var multiplier: Int
  public var maximumDelay: Duration

  public init(
    maximumAttempts: Int = 3, firstDelay: Duration = .seconds(5), multiplier: Int = 4,
    maximumDelay: Duration = .seconds(60)
  ) {
    self.maximumAttempts = max(1, maximumAttempts)
    self.firstDelay = firstDelay
    self.multiplier = multiplier
    self.maximumDelay = maximumDelay
  }

  /// The pause before attempt `n` (2, 3, …).
  public func delay(beforeAttempt n: Int) -> Duration {
    var d = firstDelay
    for _ in 2..<max(2, n) { d = min(d * multiplier, maximumDelay) }
    return min(d, maximumDelay)
  }
}
