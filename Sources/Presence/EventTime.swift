import Foundation

/// Event times as text: ISO 8601 in UTC with milliseconds (`2026-03-02T08:00:05.250Z`), the spelling of
/// the webhook body, the JSON lines and tag session ids.
///
/// Written by arithmetic (days to a civil date, Hinnant's `civil_from_days`) rather than through an
/// `ISO8601DateFormatter` made per call, which was a sixth of the monitor's CPU when 10,000 devices entered
/// at once (`provision-bench monitor`). Milliseconds are truncated (after rounding to the microsecond), as the formatter does.
public enum EventTime {
  public static func text(_ date: Date) -> String {
    // To the microsecond first: a whole millisecond such as .753 is stored as .75299999…, which must not
    // print as .752.
    let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    let totalMilliseconds = microseconds.floorDivided(by: 1000).0
    let (days, dayMilliseconds) = totalMilliseconds.floorDivided(by: 86_400_000)
    let (year, month, day) = civil(days)
    let ms = Int(dayMilliseconds)
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(ms / 3_600_000, 2)):\(pad(ms / 60_000 % 60, 2)):"
      + "\(pad(ms / 1000 % 60, 2)).\(pad(ms % 1000, 3))Z"
  }

  /// Year, month and day of the proleptic Gregorian calendar for days since 1970-01-01.
  static func civil(_ days: Int64) -> (Int, Int, Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
  }

  static func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }
}

extension Int64 {
  /// Quotient rounded down and a remainder in 0..<divisor.
  fileprivate func floorDivided(by divisor: Int64) -> (Int64, Int64) {
    let q = self / divisor
    let r = self % divisor
    return r < 0 ? (q - 1, r + divisor) : (q, r)
  }
}
