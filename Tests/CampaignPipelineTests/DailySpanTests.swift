import CampaignPipeline
import Foundation
import Testing

/// `reconcile --quiet-hours` and `--maintenance-window`: the span parsed from `HH:MM-HH:MM`, inside or outside on the gateway's clock,
/// across midnight, and clear errors for what is not a span.
@Suite(.timeLimit(.minutes(1))) struct DailySpanTests {
  /// 2026-11-28 at `hour`:`minute` in `zone`.
  func at(_ hour: Int, _ minute: Int, _ zone: TimeZone) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    return calendar.date(from: DateComponents(year: 2026, month: 11, day: 28, hour: hour, minute: minute))!
  }

  func calendar(_ zone: TimeZone) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    return calendar
  }

  @Test func aSpanWithinTheDayIncludesItsStartAndNotItsEnd() throws {
    let utc = TimeZone(identifier: "UTC")!
    let span = try DailySpan("09:30-17:00")
    #expect((span.start, span.end) == (570, 1020) && span.description == "09:30-17:00")
    #expect(!span.contains(at(9, 29, utc), calendar: calendar(utc)))
    #expect(span.contains(at(9, 30, utc), calendar: calendar(utc)))
    #expect(span.contains(at(16, 59, utc), calendar: calendar(utc)))
    #expect(!span.contains(at(17, 0, utc), calendar: calendar(utc)))
  }

  @Test func aSpanAcrossMidnightAndOnTheGatewaysOwnClock() throws {
    let utc = TimeZone(identifier: "UTC")!
    let night = try DailySpan("22:00-06:00")
    for (hour, quiet) in [(21, false), (22, true), (23, true), (0, true), (5, true), (6, false), (12, false)] {
      #expect(night.contains(at(hour, 0, utc), calendar: calendar(utc)) == quiet, "\(hour):00")
    }
    // 23:00 UTC is 00:00 in Berlin (UTC+1 in November) and 18:00 in New York: the gateway's own clock decides.
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    let newYork = TimeZone(identifier: "America/New_York")!
    #expect(night.contains(at(23, 0, utc), calendar: calendar(berlin)))
    #expect(!night.contains(at(23, 0, utc), calendar: calendar(newYork)))
  }

  @Test func whatIsNotASpanIsRefusedSayingWhatIsExpected() {
    for text in ["", "22:00", "22:00-", "24:00-06:00", "22:60-06:00", "2:00-06:00", "22:00-06:00-07:00", "aa:bb-cc:dd"]
    {
      #expect(throws: DailySpanError.self, "\(text)") { try DailySpan(text) }
    }
    #expect(throws: DailySpanError.self) { try DailySpan("08:00-08:00") }
    do {
      _ = try DailySpan("25:00-06:00")
    } catch {
      #expect(error.description == "'25:00-06:00' is not HH:MM-HH:MM on a 24-hour clock (e.g. 22:00-06:00)")
    }
  }
}
