import Foundation

/// Everything the events file sets besides its definitions: exit timeout and enter threshold for devices,
/// tag session timeouts, health thresholds, and the time zone schedules are read in.
///
/// [I] Defaults, none given by the issue: a device exits after 30 s unheard (three missed 10 s windows of
/// a slow beacon, or thirty of a 1 s one); a tag's session closes 60 s after its last device fell silent
/// (Lighthouse's tags carry a timeout but the seed gives no value); battery is low under 20 % or 2500 mV
/// (the `audit` thresholds); a device is silent after 10 minutes; schedules use the local time zone.
/// Per device, inventory columns `enterRSSI` and `exitTimeout` override the first two.
public struct MonitorSettings: Sendable, Hashable {
  public var exitTimeout: TimeInterval
  /// A device is present only once heard at this smoothed RSSI or stronger (nil: any).
  public var enterRSSI: Int?
  public var defaultTagTimeout: TimeInterval
  public var tagTimeouts: [String: TimeInterval]
  public var lowBatteryPercent: Int
  public var lowBatteryMillivolts: Int
  public var silentAfter: TimeInterval
  public var timeZone: TimeZone

  public init(
    exitTimeout: TimeInterval = 30, enterRSSI: Int? = nil, defaultTagTimeout: TimeInterval = 60,
    tagTimeouts: [String: TimeInterval] = [:], lowBatteryPercent: Int = 20, lowBatteryMillivolts: Int = 2500,
    silentAfter: TimeInterval = 600, timeZone: TimeZone = .current
  ) {
    self.exitTimeout = exitTimeout
    self.enterRSSI = enterRSSI
    self.defaultTagTimeout = defaultTagTimeout
    self.tagTimeouts = tagTimeouts
    self.lowBatteryPercent = lowBatteryPercent
    self.lowBatteryMillivolts = lowBatteryMillivolts
    self.silentAfter = silentAfter
    self.timeZone = timeZone
  }

  public func tagTimeout(_ tag: String) -> TimeInterval { tagTimeouts[tag] ?? defaultTagTimeout }

  /// A Gregorian calendar in `timeZone`, for schedules.
  public var calendar: Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    return calendar
  }
}

/// A decoded events file: settings and definitions. Without a file, `standard` is used: one definition
/// per trigger for every device (and `enter`/`exit` for every tag), each printed as a JSON line.
public struct EventFile: Sendable, Hashable {
  public var settings: MonitorSettings
  public var definitions: [EventDefinition]

  public init(settings: MonitorSettings = MonitorSettings(), definitions: [EventDefinition]) {
    self.settings = settings
    self.definitions = definitions
  }

  public static func standard(actions: [EventAction]) -> EventFile {
    EventFile(definitions: [
      EventDefinition(name: "enter", trigger: .enter, actions: actions),
      EventDefinition(name: "exit", trigger: .exit, actions: actions),
      EventDefinition(name: "tag-enter", trigger: .enter, tags: ["*"], actions: actions),
      EventDefinition(name: "tag-exit", trigger: .exit, tags: ["*"], actions: actions),
      EventDefinition(name: "proximity", trigger: .proximity, actions: actions),
      EventDefinition(name: "health", trigger: .health, actions: actions),
    ])
  }
}
