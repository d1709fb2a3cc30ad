import Foundation

/// Event times as text: ISO 8601 in UTC with milliseconds (`2026-03-02T08:00:05.250Z`), the spelling of
/// the webhook body, the JSON lines and tag session ids.
public enum EventTime {
  public static func text(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
  }
}
