import Foundation

/// A daily span of the gateway's local time, `HH:MM-HH:MM`: `reconcile --quiet-hours` (no device is
/// connected to inside it; the scans go on, so drift is still seen and the metrics still move) and
/// `reconcile --maintenance-window` (firmware is installed only inside it). The span may wrap
/// midnight (`22:00-06:00`); its start is inside it, its end is not; equal ends are refused (they would mean
/// nothing or always) [I: local wall-clock time, as an operator writes it; a day that skips or repeats an hour
/// for daylight saving keeps the span on the clock].
public struct DailySpan: Sendable, Hashable, CustomStringConvertible {
  /// Minutes after midnight, 0..<1440.
  public let start: Int
  public let end: Int

  public init(start: Int, end: Int) throws(DailySpanError) {
    guard (0..<1440).contains(start), (0..<1440).contains(end) else {
      throw DailySpanError("\(Self.clock(start))-\(Self.clock(end)) is outside the day")
    }
    guard start != end else { throw DailySpanError("the span starts and ends at \(Self.clock(start))") }
    (self.start, self.end) = (start, end)
  }

  /// `HH:MM-HH:MM` on a 24-hour clock.
  public init(_ text: String) throws(DailySpanError) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]) else {
      throw DailySpanError("'\(text)' is not HH:MM-HH:MM on a 24-hour clock (e.g. 22:00-06:00)")
    }
    try self.init(start: start, end: end)
  }

  /// Whether `date` falls inside the span, on `calendar`'s clock (its time zone: the gateway's by default).
  public func contains(_ date: Date, calendar: Calendar = .current) -> Bool {
    let parts = calendar.dateComponents([.hour, .minute], from: date)
    let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    return start < end ? (start..<end).contains(minute) : minute >= start || minute < end
  }

  public var description: String { "\(Self.clock(start))-\(Self.clock(end))" }

  static func minutes(_ text: Substring) -> Int? {
    let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
    guard pieces.count == 2, pieces.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
      let hour = Int(pieces[0]), let minute = Int(pieces[1]), (0...23).contains(hour), (0...59).contains(minute)
    else { return nil }
    return hour * 60 + minute
  }

  static func clock(_ minutes: Int) -> String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }
}

/// A `--quiet-hours` or `--maintenance-window` value that is not a span of the day.
public struct DailySpanError: Error, Sendable, Hashable, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
