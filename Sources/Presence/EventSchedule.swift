import Foundation

/// When an event definition may fire: the scheduling windows of Lighthouse's `LHEvent` initializer
/// (`startAt`, `endAt`, `dayStartAt`, `dayEndAt`, `weekdays`; docs/protocols/lighthouse.md). An event may fire when
/// any one window admits the moment; a definition with no window may fire at any time.
///
/// [I] Choices the seed leaves open, all in the events file's time zone:
/// - `start`/`end` are dates (`2026-03-01`, the whole day included) or date-times (`2026-03-01T08:00:00`);
///   `end` is inclusive for a date and exclusive for a date-time.
/// - `dailyStart`/`dailyEnd` are `HH:MM` (or `HH:MM:SS`); start inclusive, end exclusive; a start later
///   than the end spans midnight (`22:00`–`06:00`); a missing one means the start or end of the day.
/// - `weekdays` are the local date's day of the week at the moment (so the early hours of an overnight
///   window count for the next day).
public struct ScheduleWindow: Sendable, Hashable {
  /// Seconds since 1970 in absolute time: the first admitted moment, and the first moment no longer admitted.
  public var from: Date?
  public var until: Date?
  /// Seconds since local midnight.
  public var dailyStart: Int?
  public var dailyEnd: Int?
  /// 1 = Sunday … 7 = Saturday (`Calendar`'s numbering); nil = every day.
  public var weekdays: Set<Int>?

  public init(
    from: Date? = nil, until: Date? = nil, dailyStart: Int? = nil, dailyEnd: Int? = nil, weekdays: Set<Int>? = nil
  ) {
    self.from = from
    self.until = until
    self.dailyStart = dailyStart
    self.dailyEnd = dailyEnd
    self.weekdays = weekdays
  }

  public func admits(_ moment: Date, calendar: Calendar) -> Bool {
    if let from, moment < from { return false }
    if let until, moment >= until { return false }
    let parts = calendar.dateComponents([.weekday, .hour, .minute, .second], from: moment)
    if let weekdays, let day = parts.weekday, !weekdays.contains(day) { return false }
    guard dailyStart != nil || dailyEnd != nil else { return true }
    let second = (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
    let start = dailyStart ?? 0
    let end = dailyEnd ?? 86_400
    return start <= end ? (start <= second && second < end) : (second >= start || second < end)
  }

  /// The weekday names the events file accepts, by `Calendar` number.
  public static let weekdayNames = ["sun": 1, "mon": 2, "tue": 3, "wed": 4, "thu": 5, "fri": 6, "sat": 7]
}

/// All the windows of one definition.
public struct EventSchedule: Sendable, Hashable {
  public var windows: [ScheduleWindow]

  public init(_ windows: [ScheduleWindow] = []) { self.windows = windows }

  public func admits(_ moment: Date, calendar: Calendar) -> Bool {
    windows.isEmpty || windows.contains { $0.admits(moment, calendar: calendar) }
  }
}
