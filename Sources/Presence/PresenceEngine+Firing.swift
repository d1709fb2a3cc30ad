import Foundation

extension PresenceEngine {
  /// Fires every definition of `kind`'s trigger that concerns this device and passes `also`.
  mutating func fireDevice(
    _ kind: PresenceEvent.Kind, _ device: TrackedDevice, at: Date, previous: String? = nil, silent: Double? = nil,
    where also: (EventDefinition) -> Bool
  ) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    for (index, definition) in file.definitions.enumerated()
    where definition.trigger == kind.trigger && matches(definition, device) && also(definition) {
      if let event = fire(
        index, kind, subject: device.key, at: at,
        { event in
          event.device = device.snapshot
          event.previous = previous
          event.silentSeconds = silent
        })
      {
        events.append(event)
      }
    }
    return events
  }

  /// Fires every definition that concerns this tag's sessions with `kind`'s trigger.
  mutating func fireTag(_ kind: PresenceEvent.Kind, _ tag: String, _ session: TagSession, at: Date) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    for (index, definition) in file.definitions.enumerated()
    where definition.trigger == kind.trigger && definition.matches(tag: tag) {
      if let event = fire(
        index, kind, subject: "tag:\(tag)", at: at,
        { event in
          event.tag = tag
          event.session = session.id
          event.tagDevices = session.devices.sorted()
        })
      {
        events.append(event)
      }
    }
    return events
  }

  /// One definition firing for one subject, unless its schedule, trigger-once or cooldown holds it back.
  /// [I] Trigger-once counts only firings that happened (an enter outside the schedule does not use it up).
  mutating func fire(
    _ index: Int, _ kind: PresenceEvent.Kind, subject: String, at: Date, _ fill: (inout PresenceEvent) -> Void
  ) -> PresenceEvent? {
    let definition = file.definitions[index]
    guard definition.schedule.admits(at, calendar: calendar) else { return nil }
    let key = FireKey(definition: index, subject: subject)
    if let last = fired[key] {
      if definition.triggerOnce { return nil }
      if let cooldown = definition.cooldown, at.timeIntervalSince(last) < cooldown { return nil }
    }
    fired[key] = at
    sequence += 1
    var event = PresenceEvent(
      sequence: sequence, name: definition.name, kind: kind, at: at, actions: definition.actions)
    event.message = definition.message
    event.payload = definition.payload
    fill(&event)
    return event
  }

  /// Whether a device's own events concern this definition: by its key, or (tracked by identity) by the
  /// address it was last heard from.
  func matches(_ definition: EventDefinition, _ device: TrackedDevice) -> Bool {
    definition.matches(device: device.key, also: device.identity == nil ? nil : device.address, tags: device.tags)
  }

  /// Opens the session of each of the device's tags that has none.
  mutating func openSessions(of device: TrackedDevice, at: Date) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    for tag in device.tags.sorted() {
      var session = tags[tag] ?? TagSession(tag: tag)
      let opened = session.heard(device.key, at: at)
      tags[tag] = session
      if opened {
        let closes = at + file.settings.tagTimeout(tag)
        nextTagClose = min(nextTagClose ?? closes, closes)
        events += fireTag(.sessionOpen, tag, session, at: at)
      }
    }
    return events
  }

  /// Closes each open session whose devices have all been silent for its tag's timeout.
  /// Looks at the sessions only once `nextTagClose` has come, and then finds the next such moment.
  mutating func closeSessions(at now: Date) -> [PresenceEvent] {
    guard let next = nextTagClose, next <= now else { return [] }
    var events: [PresenceEvent] = []
    nextTagClose = nil
    for tag in tags.keys.sorted() {
      guard var session = tags[tag], session.isOpen, let last = session.lastHeard else { continue }
      guard now.timeIntervalSince(last) >= file.settings.tagTimeout(tag) else {
        let closes = last + file.settings.tagTimeout(tag)
        nextTagClose = min(nextTagClose ?? closes, closes)
        continue
      }
      let closing = session
      session.close()
      tags[tag] = session
      events += fireTag(.sessionClose, tag, closing, at: now)
    }
    return events
  }
}

/// One tag's session (Lighthouse's `LHTag`: `timeout`, `lastSeenAt`, `sessionId`). Its id is the tag and
/// the moment it opened (`dock@2026-03-02T08:00:05.000Z`), so it is unique across restarts of the monitor.
struct TagSession: Sendable, Hashable {
  let tag: String
  var id: String?
  /// Devices of the tag heard during this session.
  var devices: Set<String> = []
  var lastHeard: Date?

  init(tag: String) { self.tag = tag }

  var isOpen: Bool { id != nil }

  /// Records a sighting of one of its devices; true when this opened the session.
  mutating func heard(_ address: String, at: Date) -> Bool {
    lastHeard = max(lastHeard ?? at, at)
    devices.insert(address)
    guard id == nil else { return false }
    id = "\(tag)@\(EventTime.text(at))"
    return true
  }

  mutating func close() {
    id = nil
    devices = []
  }
}
