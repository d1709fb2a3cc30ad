import Foundation
import Presence
import Profiles
import Testing

/// The events file: every problem at once with file:line:col, JSON path and what is allowed.
@Suite(.timeLimit(.minutes(2))) struct EventFileDecoderTests {
  @Test func everyProblemIsReportedWithItsLocation() {
    let text = """
      { "version": 1, "timeZone": "Mars/Olympus",
        "events": [
          { "name": "a", "trigger": "arrive", "devices": ["not-an-address"] },
          { "name": "a", "trigger": "enter", "minimumProximity": "close", "colour": 1,
            "schedule": [{ "dailyStart": "25:00", "weekdays": ["funday"], "start": "2026-02-30" }],
            "actions": [{ "type": "webhook", "url": "ftp://x" }, { "type": "command", "run": [] },
                        { "type": "command", "run": ["logger", "-t", "x"] }] }
        ] }
      """
    #expect {
      try EventFileDecoder.decode(Array(text.utf8), file: "ev.json")
    } throws: { error in
      let lines = (error as? ProfileDiagnostics)?.all.map(\.description) ?? []
      return lines == [
        #"ev.json:1:29: $.timeZone: "Mars/Olympus" is not a time zone (allowed: an IANA name such as UTC or Europe/Berlin)"#,
        #"ev.json:3:31: $.events[0].trigger: "arrive" is not allowed (allowed: enter, exit, proximity, health)"#,
        #"ev.json:3:53: $.events[0].devices[0]: "not-an-address" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF or ibeacon:UUID:MAJOR:MINOR (major and minor 0…65535) or eddystone:NAMESPACE:INSTANCE (20 and 12 hex digits))"#,
        #"ev.json:4:15: $.events[1].name: "a" is used by an earlier event"#,
        #"ev.json:4:60: $.events[1].minimumProximity: "close" is not allowed (allowed: far, near, immediate)"#,
        #"ev.json:4:69: $.events[1].colour: unknown key "colour" (allowed: name, devices, tags, trigger, triggerOnce, minimumProximity, minimumRSSI, cooldown, health, schedule, actions, message, payload)"#,
        #"ev.json:5:36: $.events[1].schedule[0].dailyStart: "25:00" is not a time of day (allowed: HH:MM or HH:MM:SS, 00:00…24:00)"#,
        #"ev.json:5:58: $.events[1].schedule[0].weekdays[0]: "funday" is not a weekday (mon, tue, wed, thu, fri, sat, sun)"#,
        #"ev.json:5:78: $.events[1].schedule[0].start: "2026-02-30" is not a date (allowed: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], in the file's timeZone)"#,
        #"ev.json:6:47: $.events[1].actions[0].url: "ftp://x" is not an http or https URL"#,
        #"ev.json:6:88: $.events[1].actions[1].run: a command needs "run": [program, arguments…]"#,
        #"ev.json:7:47: $.events[1].actions[2].run[0]: "logger" is not an absolute path (the program is not looked up in PATH)"#,
      ]
    }
  }

  /// The one error shape of every file the tool reads: a misspelt key names the closest known one, broken
  /// JSON the line and column where it broke.
  @Test func aMisspeltKeyAndBrokenJSONSayWhereAndSuggest() {
    func lines(_ text: String) -> [String] {
      do {
        _ = try EventFileDecoder.decode(Array(text.utf8), file: "ev.json")
        return []
      } catch {
        return error.all.map(\.description)
      }
    }
    let misspelt = lines("{ \"version\": 1,\n  \"evnts\": [] }")
    #expect(
      misspelt.contains(
        #"ev.json:2:3: $.evnts: unknown key "evnts" — did you mean "events"? (allowed: version, timeZone, defaults, health, tags, events)"#
      ), "\(misspelt)")
    let broken = lines("{ \"version\": 1,\n  \"events\": [ }")
    #expect(broken.first?.hasPrefix("ev.json:2:15: $: not valid JSON: ") == true, "\(broken)")
  }

  @Test func actionsFromTheCommandLineJoinEveryEvent() throws {
    let text = #"""
      { "version": 1, "events": [ { "name": "a", "trigger": "exit" },
        { "name": "b", "trigger": "enter", "actions": [{ "type": "command", "run": ["/bin/true"] }] } ] }
      """#
    let file = try EventFileDecoder.decode(Array(text.utf8), file: "e.json", extraActions: [.webhook(url: "http://h/")])
    #expect(
      file.definitions.map(\.actions) == [
        [.webhook(url: "http://h/")], [.command(["/bin/true"]), .webhook(url: "http://h/")],
      ])
    let bare = try EventFileDecoder.decode(Array(text.utf8), file: "e.json")
    #expect(bare.definitions[0].actions == [.jsonl])
  }
}

/// Schedule windows in the file's time zone.
@Suite(.timeLimit(.minutes(2))) struct EventScheduleTests {
  static func calendar(_ zone: String) -> Calendar {
    var c = Calendar(identifier: .gregorian)
    c.timeZone = TimeZone(identifier: zone)!
    return c
  }

  static func window(_ json: String, zone: String = "UTC") throws -> (EventSchedule, Calendar) {
    let text =
      #"{ "version": 1, "timeZone": "\#(zone)", "events": [ { "name": "x", "trigger": "enter", "schedule": [\#(json)] } ] }"#
    let file = try EventFileDecoder.decode(Array(text.utf8), file: "e.json")
    return (file.definitions[0].schedule, file.settings.calendar)
  }

  static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

  @Test func anOvernightWindowOnWeekdays() throws {
    let (schedule, calendar) = try Self.window(
      #"{ "dailyStart": "22:00", "dailyEnd": "06:00", "weekdays": ["fri", "sat"] }"#)
    #expect(schedule.admits(Self.at("2026-03-06T23:30:00Z"), calendar: calendar))  // Friday night
    #expect(schedule.admits(Self.at("2026-03-07T05:59:59Z"), calendar: calendar))  // Saturday early
    #expect(!schedule.admits(Self.at("2026-03-07T06:00:00Z"), calendar: calendar))
    // The weekday is the local date's: early Friday counts as Friday, early Sunday as Sunday.
    #expect(schedule.admits(Self.at("2026-03-06T05:00:00Z"), calendar: calendar))
    #expect(!schedule.admits(Self.at("2026-03-08T01:00:00Z"), calendar: calendar))  // Sunday
  }

  @Test func datesAreWholeDaysInTheFilesTimeZone() throws {
    let (schedule, calendar) = try Self.window(
      #"{ "start": "2026-03-01", "end": "2026-03-31" }"#, zone: "Europe/Berlin")
    #expect(!schedule.admits(Self.at("2026-02-28T22:59:59Z"), calendar: calendar))
    #expect(schedule.admits(Self.at("2026-02-28T23:00:00Z"), calendar: calendar))  // midnight in Berlin
    #expect(schedule.admits(Self.at("2026-03-31T21:59:59Z"), calendar: calendar))  // 23:59:59 CEST
    #expect(!schedule.admits(Self.at("2026-03-31T22:00:00Z"), calendar: calendar))
    let (exact, utc) = try Self.window(#"{ "start": "2026-03-01T08:30", "end": "2026-03-01T09:00:00" }"#)
    #expect(exact.admits(Self.at("2026-03-01T08:30:00Z"), calendar: utc))
    #expect(!exact.admits(Self.at("2026-03-01T09:00:00Z"), calendar: utc))
  }
}

/// Proximity classes and smoothing: the formula's vectors.
@Suite(.timeLimit(.minutes(2))) struct ProximityTests {
  @Test func classesFromTheLogDistanceModel() {
    // 10^((−59 − (−50)) / 20) = 0.35 m; 10^(0/20) = 1 m; 10^(16/20) = 6.3 m.
    #expect(ProximityClassifier.classify(rssi: -50, measuredPower: -59) == .immediate)
    #expect(ProximityClassifier.classify(rssi: -59, measuredPower: -59) == .near)
    #expect(ProximityClassifier.classify(rssi: -75, measuredPower: -59) == .far)
    #expect(ProximityClassifier.classify(rssi: -75, measuredPower: nil) == .far)
    #expect(ProximityClassifier.classify(rssi: nil, measuredPower: -59) == .unknown)
    #expect(abs(ProximityClassifier.distance(rssi: -69, measuredPower: -59) - 3.162) < 0.001)
  }

  @Test func theAverageMovesAThirdOfTheWay() {
    var s = RSSISmoother()
    s.add(-60)
    s.add(-70)
    #expect(s.value == -63)
  }

  /// Webhook URLs that can never be delivered to once were accepted and their events retried for
  /// ever: no host, a port out of range, a space or CR/LF, and a password (stored in the spool) are refused.
  @Test func unusableWebhookURLsAreRefusedWithTheirPath() {
    let urls = [
      "http://", "http://h:99999/", "http://my host/", "http://h/a\r\nX-Evil: 1", "https://user:pw@h/", "http://h:/x",
    ]
    let actions = urls.map {
      #"{ "type": "webhook", "url": \#(String(decoding: try! JSONEncoder().encode($0), as: UTF8.self)) }"#
    }
    let text =
      #"{ "version": 1, "events": [ { "name": "a", "trigger": "enter", "actions": [\#(actions.joined(separator: ", "))] } ] }"#
    #expect {
      try EventFileDecoder.decode(Array(text.utf8), file: "ev.json")
    } throws: { error in
      let lines = (error as? ProfileDiagnostics)?.all.map(\.description) ?? []
      let reasons = lines.map { $0.components(separatedBy: ".url: ").last ?? "" }
      return lines.count == 6 && lines.indices.allSatisfy { lines[$0].contains("$.events[0].actions[\($0)].url: ") }
        && reasons[0] == #""http://" has no host"#
        && reasons[1] == #""http://h:99999/": port "99999" is not a number from 1 to 65535"#
        && reasons[2] == #""http://my host/" contains a space (write it %20)"#
        && reasons[3] == "the URL contains a control character (CR, LF, tab…)"
        && reasons[4].hasPrefix(#""https://h/" has a user or password in it"#) && !lines[4].contains("pw")
        && reasons[5] == #""http://h:/x": port "" is not a number from 1 to 65535"#
    }
    #expect(throws: Never.self) {
      try EventFileDecoder.decode(
        Array(
          #"{ "version": 1, "events": [ { "name": "a", "trigger": "enter", "actions": [{ "type": "webhook", "url": "https://[::1]:8443/h?x=1" }, { "type": "webhook", "url": "HTTP://hooks.example-1.net/a%20b" }] } ] }"#
            .utf8),
        file: "ev.json")
    }
  }
}
