import BeaconCore
import Foundation
import JSON

/// What fires an event definition (Lighthouse's `LHEventTrigger` Enter/Exit, widened by the issue with
/// proximity changes and health).
public enum EventTrigger: String, Sendable, Hashable, CaseIterable {
  case enter, exit, proximity, health
}

/// The health conditions a `health` definition may name (all when it names none).
public enum HealthCondition: String, Sendable, Hashable, CaseIterable {
  /// Battery under the percent or millivolt threshold.
  case battery
  /// Not heard for longer than the silent threshold.
  case silent
  /// The advertised firmware version changed.
  case firmware
}

/// What is done when a definition fires (Lighthouse's `LHEventType` Webhook, and what an operator's tools
/// read: a line on standard output, a command).
public enum EventAction: Sendable, Hashable {
  /// One JSON line on standard output.
  case jsonl
  /// An HTTP POST of the event's JSON body, through the webhook spool.
  case webhook(url: String)
  /// A program run with the event in its environment (argv, no shell).
  case command([String])
}

/// One event definition of the events file (Lighthouse's `LHEvent`: name, proximity, trigger, triggerOnce,
/// timeout, beacons, and the schedule of its initializer; docs/protocols/lighthouse.md).
///
/// Targets [I]: for `enter`/`exit`, `devices` fire on each listed device's own enter/exit and `tags` on the
/// tag's session opening/closing; for `proximity`/`health`, a device matches when it is listed or carries a
/// listed tag. `"*"` in `tags` is every tag. With neither, every device matches (and no tag).
public struct EventDefinition: Sendable, Hashable {
  public var name: String
  public var trigger: EventTrigger
  /// Upper-case addresses and canonical beacon identities (`BeaconIdentity`'s text): a device named by its
  /// identity is tracked under it, whatever address it advertises from (`PresenceEngine`).
  public var devices: Set<String>
  public var tags: Set<String>
  /// Fire at most once per device (or tag) for the life of the monitor.
  public var triggerOnce: Bool
  /// `enter`/`exit`: the device counts as inside only at this proximity or closer; `proximity`: only
  /// changes to this class or closer fire.
  public var minimumProximity: Proximity?
  /// `enter`/`exit`: the device counts as inside only with a smoothed RSSI at or above this (dBm).
  public var minimumRSSI: Int?
  /// After firing for a device or tag, the same definition stays quiet for it this long (Lighthouse's
  /// `LHEvent.timeout`).
  public var cooldown: TimeInterval?
  public var health: Set<HealthCondition>
  public var schedule: EventSchedule
  public var actions: [EventAction]
  /// The operator's text and JSON for whoever receives this definition's events (`EventOperatorFields`).
  public var message: String?
  public var payload: JSONValue?

  public init(
    name: String, trigger: EventTrigger, devices: Set<String> = [], tags: Set<String> = [], triggerOnce: Bool = false,
    minimumProximity: Proximity? = nil, minimumRSSI: Int? = nil, cooldown: TimeInterval? = nil,
    health: Set<HealthCondition> = Set(HealthCondition.allCases), schedule: EventSchedule = EventSchedule(),
    actions: [EventAction] = [.jsonl], message: String? = nil, payload: JSONValue? = nil
  ) {
    self.name = name
    self.trigger = trigger
    self.devices = Set(devices.map { BeaconIdentity($0)?.description ?? $0.uppercased() })
    self.tags = tags
    self.triggerOnce = triggerOnce
    self.minimumProximity = minimumProximity
    self.minimumRSSI = minimumRSSI
    self.cooldown = cooldown
    self.health = health
    self.schedule = schedule
    self.actions = actions
    self.message = message
    self.payload = payload
  }

  /// Whether a device's own events (enter/exit of the device, proximity, health) concern this definition.
  /// `also`: another name of the device (the address a device tracked by its identity was last heard from).
  public func matches(device address: String, also other: String? = nil, tags deviceTags: Set<String>) -> Bool {
    if devices.isEmpty && tags.isEmpty { return true }
    if devices.contains(address) || other.map(devices.contains) == true { return true }
    // enter/exit on tags are the tag's session events, not its devices'.
    guard trigger == .proximity || trigger == .health else { return false }
    return tags.contains("*") ? !deviceTags.isEmpty : !tags.isDisjoint(with: deviceTags)
  }

  /// Whether a tag's session events concern this definition.
  public func matches(tag: String) -> Bool {
    (trigger == .enter || trigger == .exit) && (tags.contains(tag) || tags.contains("*"))
  }

  /// Whether "inside" for this definition needs more than being present.
  var narrowsPresence: Bool { minimumProximity != nil || minimumRSSI != nil }
}
