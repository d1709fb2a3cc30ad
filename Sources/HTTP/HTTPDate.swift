/// An HTTP-date in its preferred form, IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, as
/// seconds since 1970-01-01 UTC. Pure and strict: exactly that layout, a real calendar date, hours 0–23,
/// minutes 0–59, seconds 0–60 (a leap second). The obsolete RFC 850 and asctime forms are not accepted [I:
/// servers have sent IMF-fixdate for decades; a Retry-After we cannot read falls back to our own backoff].
///
/// Written out rather than through Foundation's `DateFormatter`, which allocates per formatter a character
/// set that corelibs-foundation never frees (LeakSanitizer found it through `fuzz-http`).
public enum HTTPDate {
  static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
  static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  /// Seconds since the Unix epoch; nil when `text` is not an IMF-fixdate.
  public static func secondsSince1970(_ text: String) -> Int64? {
    let b = Array(text.utf8)
    // "Sun, 06 Nov 1994 08:49:37 GMT" is 29 bytes with fixed separators.
    guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20,
      b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 0x20, word(b, 26, 3) == "GMT",
      days.contains(word(b, 0, 3)), let month = months.firstIndex(of: word(b, 8, 3)).map({ $0 + 1 }),
      let day = number(b, 5, 2), let year = number(b, 12, 4), let hour = number(b, 17, 2),
      let minute = number(b, 20, 2), let second = number(b, 23, 2),
      (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second <= 60
    else { return nil }
    let daysSinceEpoch = civilDays(year: year, month: month, day: day)
    return daysSinceEpoch * 86_400 + Int64(hour * 3600 + minute * 60 + second)
  }

  static func word(_ b: [UInt8], _ at: Int, _ count: Int) -> String {
    String(decoding: b[at..<at + count], as: UTF8.self)
  }

  /// A run of ASCII digits, nil when any byte is not one.
  static func number(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
    var value = 0
    for byte in b[at..<at + count] {
      guard (0x30...0x39).contains(byte) else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return value
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
  static func civilDays(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let m = Int64(month)
    let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
