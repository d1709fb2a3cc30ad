import BeaconCore
import Foundation
import JSON
import Profiles

/// One `schedule` window of an event (`ScheduleWindow` says what each key means).
enum ScheduleWindowDecoder {
  static func window(_ json: SourceJSON, _ path: JSONPath, _ calendar: Calendar, _ reader: inout EventFileReader)
    -> ScheduleWindow?
  {
    guard let w = reader.object(json, path, keys: ["start", "end", "dailyStart", "dailyEnd", "weekdays"]) else {
      return nil
    }
    var window = ScheduleWindow()
    if let text = reader.string(w["start"], path.appending("start")) {
      window.from = moment(text, calendar, endOfDay: false)
      if window.from == nil {
        reader.problem(w["start"], path.appending("start"), "\"\(text.echoed)\" is not a date", allowed: dateForms)
      }
    }
    if let text = reader.string(w["end"], path.appending("end")) {
      window.until = moment(text, calendar, endOfDay: true)
      if window.until == nil {
        reader.problem(w["end"], path.appending("end"), "\"\(text.echoed)\" is not a date", allowed: dateForms)
      }
    }
    if let from = window.from, let until = window.until, until <= from {
      reader.problem(w["end"], path.appending("end"), "the window ends before it starts")
    }
    for (key, keyPath) in [("dailyStart", \ScheduleWindow.dailyStart), ("dailyEnd", \ScheduleWindow.dailyEnd)] {
      guard let text = reader.string(w[key], path.appending(key)) else { continue }
      if let seconds = timeOfDay(text) {
        window[keyPath: keyPath] = seconds
      } else {
        reader.problem(
          w[key], path.appending(key), "\"\(text.echoed)\" is not a time of day",
          allowed: "HH:MM or HH:MM:SS, 00:00…24:00")
      }
    }
    if let names = reader.strings(
      w["weekdays"], path.appending("weekdays"),
      check: {
        ScheduleWindow.weekdayNames[$0.lowercased()] == nil
          ? "\"\($0.echoed)\" is not a weekday (mon, tue, wed, thu, fri, sat, sun)" : nil
      })
    {
      window.weekdays = Set(names.compactMap { ScheduleWindow.weekdayNames[$0.lowercased()] })
    }
    return window
  }

  static let dateForms = "YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], in the file's timeZone"

  /// A date (its whole day, so `endOfDay` gives the next midnight) or a local date-time.
  static func moment(_ text: String, _ calendar: Calendar, endOfDay: Bool) -> Date? {
    let halves = text.split(separator: "T", omittingEmptySubsequences: false)
    guard (1...2).contains(halves.count) else { return nil }
    let date = halves[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
    guard date.count == 3, let y = date[0], let m = date[1], let d = date[2], halves[0].count == 10,
      (1...12).contains(m), (1...31).contains(d)
    else { return nil }
    var parts = DateComponents(year: y, month: m, day: d)
    if halves.count == 2 {
      guard let seconds = timeOfDay(String(halves[1])), seconds < 86_400 else { return nil }
      parts.hour = seconds / 3600
      parts.minute = seconds / 60 % 60
      parts.second = seconds % 60
    }
    guard let start = calendar.date(from: parts), calendar.component(.day, from: start) == d else { return nil }
    return halves.count == 1 && endOfDay ? calendar.date(byAdding: .day, value: 1, to: start) : start
  }

  /// `HH:MM` or `HH:MM:SS` as seconds since midnight (`24:00` is the end of the day).
  static func timeOfDay(_ text: String) -> Int? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }) else {
      return nil
    }
    let values = parts.map { Int($0) }
    guard let h = values[0], let m = values[1], (0...24).contains(h), (0...59).contains(m) else { return nil }
    let s = parts.count == 3 ? values[2] : 0
    guard let s, (0...59).contains(s) else { return nil }
    let total = h * 3600 + m * 60 + s
    return total <= 86_400 ? total : nil
  }
}

/// The `actions` of an event.
enum EventActionDecoder {
  static func actions(_ json: SourceJSON, _ path: JSONPath, _ reader: inout EventFileReader) -> [EventAction] {
    guard case .array(let items) = json.kind else {
      reader.problem(json, path, "expected an array of actions")
      return []
    }
    var out: [EventAction] = []
    for (i, item) in items.enumerated() {
      let p = path.appending(i)
      guard let a = reader.object(item, p, keys: ["type", "url", "run"]) else { continue }
      let types: [(String, String)] = [("jsonl", "jsonl"), ("webhook", "webhook"), ("command", "command")]
      switch reader.choice(a["type"], p.appending("type"), types) {
      case "jsonl"?: out.append(.jsonl)
      case "webhook"?:
        guard let url = reader.string(a["url"], p.appending("url")) else {
          if a["url"] == nil { reader.problem(item, p.appending("url"), "missing") }
          continue
        }
        // Unusable URLs (no host, a bad port, a space, CR/LF, a password) are refused here rather than
        // retried from the spool for ever.
        if let problem = WebhookURL.problem(url) {
          reader.problem(a["url"], p.appending("url"), problem)
          continue
        }
        out.append(.webhook(url: url))
      case "command"?:
        guard let run = reader.strings(a["run"], p.appending("run")), !run.isEmpty else {
          reader.problem(a["run"] ?? item, p.appending("run"), "a command needs \"run\": [program, arguments…]")
          continue
        }
        // [I] No PATH search and no shell: the program is named by its absolute path, so what runs does not
        // depend on the monitor's environment.
        guard run[0].hasPrefix("/") else {
          reader.problem(
            a["run"], p.appending("run").appending(0),
            "\"\(run[0].echoed)\" is not an absolute path (the program is not looked up in PATH)")
          continue
        }
        out.append(.command(run))
      default:
        if a["type"] == nil { reader.problem(item, p.appending("type"), "missing", allowed: "jsonl, webhook, command") }
      }
    }
    return out
  }
}
