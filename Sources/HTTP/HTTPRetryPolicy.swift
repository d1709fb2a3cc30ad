import Foundation

/// When a failed attempt is tried again: connection errors (refused, reset, cut mid-body, nothing received,
/// connect timeout), 5xx other than 501/505, and 429. The wait doubles from `initialDelay` up to `maxDelay`;
/// a `Retry-After` (RFC 9110 §10.2.3, seconds or an HTTP-date) replaces the computed wait. Choice [I]: a
/// Retry-After longer than `maxDelay` is not waited for — the call fails at once with the server's wait in
/// the message, so a rate-limited command never hangs for an hour.
///
/// Not retried: TLS failures, 4xx other than 429, refused redirects, the body cap, and a transfer aborted as
/// too slow or past the overall cap (the server answers, just too slowly; the next attempt would too).
public struct HTTPRetryPolicy: Sendable, Hashable {
  /// Attempts in all, the first included (1 = no retry).
  public var maxAttempts: Int
  /// The wait after the first failed attempt.
  public var initialDelay: Duration
  /// The longest wait between two attempts, a Retry-After included.
  public var maxDelay: Duration

  public init(maxAttempts: Int = 4, initialDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(60)) {
    self.maxAttempts = maxAttempts
    self.initialDelay = initialDelay
    self.maxDelay = maxDelay
  }

  /// No retries.
  public static let none = HTTPRetryPolicy(maxAttempts: 1)

  /// The wait before attempt `failed + 1` after `failed` attempts failed: `initialDelay × 2^(failed−1)`,
  /// at most `maxDelay`, or `retryAfter` when the server sent one. Nil when `retryAfter` exceeds `maxDelay`.
  public func delay(afterFailedAttempts failed: Int, retryAfter: Duration?) -> Duration? {
    if let retryAfter { return retryAfter <= maxDelay ? max(retryAfter, .zero) : nil }
    var wait = initialDelay
    for _ in 1..<max(failed, 1) {
      wait *= 2
      if wait >= maxDelay { return maxDelay }
    }
    return min(wait, maxDelay)
  }

  /// A Retry-After value as a wait from `now`: delay-seconds (`120`) or an IMF-fixdate
  /// (`Wed, 21 Oct 2015 07:28:00 GMT`, `HTTPDate`); nil when it is neither. A date in the past is a wait of zero.
  public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
    let text = value.trimmingCharacters(in: .whitespaces)
    if !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
      return Int(text).map { .seconds($0) } ?? .seconds(Int.max / 1_000_000_000_000)
    }
    guard let epoch = HTTPDate.secondsSince1970(text) else { return nil }
    let seconds = max(0, Double(epoch) - now.timeIntervalSince1970)
    return .milliseconds(Int(seconds * 1000))
  }
}
