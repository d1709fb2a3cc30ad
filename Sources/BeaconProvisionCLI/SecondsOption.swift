import ArgumentParser

/// The one check for every option given in seconds (`--duration`, `--timeout`, `--retry-delay`, …), and the
/// one conversion of such a value to a `Duration`.
///
/// An option value is a `Double` the user typed: it may be `nan`, `inf`, negative or `1e300`. Converting
/// such a value with `Int(seconds * 1000)` traps, so each command's `validate()` checks its seconds here
/// first (swift-argument-parser runs `validate()` before `run()`), and the error names the option and its
/// allowed range. Choice [I]: nothing waits longer than a year (`longest`), which keeps every accepted
/// value far inside `Int` milliseconds.
enum SecondsOption {
  /// A year, in seconds: the longest wait or scan any option accepts.
  static let longest = 366.0 * 86_400

  /// Throws unless `value` (when given) is more than 0 — or at least 0 when `zeroAllowed` — and at most
  /// `limit`. NaN fails every comparison, so it is rejected too.
  static func validate(_ value: Double?, _ option: String, zeroAllowed: Bool = false, atMost limit: Double = longest)
    throws
  {
    guard let value else { return }
    guard zeroAllowed ? value >= 0 : value > 0, value <= limit else {
      let lower = zeroAllowed ? "from 0" : "more than 0 and"
      throw ValidationError("\(option) must be a number of seconds \(lower) at most \(text(limit)) (got \(value))")
    }
  }

  /// The `Duration` of a value `validate` accepted, to the millisecond.
  static func duration(_ seconds: Double) -> Duration { .milliseconds(Int((seconds * 1000).rounded())) }

  private static func text(_ limit: Double) -> String {
    limit == limit.rounded() ? String(Int(limit)) : String(limit)
  }
}
