import BeaconCore
import Foundation
import Profiles

/// The presence monitor's rules, as a pure state machine (Lighthouse's beacons, tags and events,
/// docs/protocols/lighthouse.md): sightings and clock ticks in, the events that fire out, in order. It reads no
/// clock — every call says what time it is — so a transcript of sightings always gives the same events.
///
/// - Devices: present from their first sighting at or above the enter threshold; `exit` when unheard for
///   their exit timeout; `proximity` when the class of their smoothed RSSI changes while present.
/// - Definitions that narrow presence (`minimumProximity`, `minimumRSSI`) keep their own inside/outside
///   state per device, so "enter within 3 m" fires when the device comes that close, and exit when it
///   moves away or goes silent.
/// - Tags: a session opens when the first device of the tag comes in and closes when every device of it
///   has been silent for the tag's timeout (Lighthouse's `LHTag.timeout`).
/// - Health: battery under the threshold, silent longer than the silent threshold, firmware changed.
///
/// With an inventory, only its devices are tracked and its `tags` column gives their tags; without one,
/// every device heard is.
///
/// Identities: a device is tracked under a beacon identity (`BeaconIdentity`: iBeacon UUID/major/minor,
/// Eddystone namespace/instance) when its sighting shows one that an inventory row or an event's `devices`
/// names, else under its address. So a beacon that rotates its address stays one device — no exit and
/// enter at each new address — and its events carry the identity and the address last heard. [I] A device
/// that shows several named identities is tracked under the first its frames show; identities nobody
/// names are not used (a phone's rotating address is no business of the monitor's).
public struct PresenceEngine: Sendable {
  public let file: EventFile
  let inventory: Inventory?
  let calendar: Calendar
  /// The identities the inventory's rows and the definitions' `devices` name.
  let named: Set<String>
  /// Tracked devices by key: identity or address (`TrackedDevice.key`).
  var devices: [String: TrackedDevice] = [:]
  var tags: [String: TagSession] = [:]
  /// Per narrowing definition (by index), the devices inside it.
  var inside: [Int: Set<String>] = [:]
  /// Per definition and subject: when it last fired (trigger-once and cooldown).
  var fired: [FireKey: Date] = [:]
  var sequence = 0
  /// Present devices by when they exit if not heard again, and devices not yet reported silent by when they
  /// would be (`DeadlineHeap`); the sets say which devices have an entry.
  var exits = DeadlineHeap()
  var silences = DeadlineHeap()
  var exitQueued: Set<String> = []
  var silenceQueued: Set<String> = []
  /// No open tag session can close before this (a lower bound: sessions heard since only close later).
  var nextTagClose: Date?

  struct FireKey: Hashable, Sendable {
    var definition: Int
    var subject: String
  }

  public init(file: EventFile, inventory: Inventory? = nil) {
    self.file = file
    self.inventory = inventory
    self.calendar = file.settings.calendar
    let names = (inventory?.rows.map(\.address) ?? []) + file.definitions.flatMap(\.devices)
    self.named = Set(names.filter(BeaconIdentity.isIntended))
  }

  /// Whether the inventory or an event names a device by beacon identity (else sightings' identities are
  /// never looked at).
  public var namesIdentities: Bool { !named.isEmpty }

  /// Folds in sightings (each at its own time, taken in time order): timeouts up to each sighting's time
  /// are applied first, so a device heard again after its exit timeout exits and re-enters.
  public mutating func observe(_ sightings: [PresenceSighting]) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    for sighting in sightings.enumerated().sorted(by: { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }).map(
      \.element)
    {
      events += tick(at: sighting.at)
      let key = sighting.identities.first(where: named.contains) ?? sighting.address
      guard var device = tracked(key, address: sighting.address) else { continue }
      let low = (file.settings.lowBatteryPercent, file.settings.lowBatteryMillivolts)
      let change = device.absorb(sighting, low: low)
      devices[device.key] = device
      queueDeadlines(device)
      let at = sighting.at
      if change.entered {
        events += fireDevice(.enter, device, at: at) { !$0.narrowsPresence }
      }
      events += updateNarrowed(device, at: at)
      if let from = change.proximityFrom {
        events += fireDevice(.proximity, device, at: at, previous: from.rawValue) {
          $0.minimumProximity.map { device.proximity >= $0 } ?? true
        }
      }
      if change.batteryFell { events += fireDevice(.batteryLow, device, at: at) { $0.health.contains(.battery) } }
      if let from = change.firmwareFrom {
        events += fireDevice(.firmwareChanged, device, at: at, previous: from) { $0.health.contains(.firmware) }
      }
      if device.present { events += openSessions(of: device, at: at) }
    }
    return events
  }

  /// Applies the timeouts that have run out by `now`: device exits, silent devices, closing tag sessions.
  /// Only devices whose deadline has come are looked at (in address order, as a scan of every device would
  /// meet them), so a tick costs O(log n) per device due rather than a sort of all devices.
  public mutating func tick(at now: Date) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    // [I] A microsecond of slack: `heard + timeout` and `now − heard` may round differently.
    let slack = now.addingTimeInterval(0.000_001)
    let exiting = exits.popDue(slack)
    let silencing = silences.popDue(slack)
    guard !exiting.isEmpty || !silencing.isEmpty else { return closeSessions(at: now) }
    for address in exiting { exitQueued.remove(address) }
    for address in silencing { silenceQueued.remove(address) }
    for address in Set(exiting + silencing).sorted() {
      guard var device = devices[address], let heard = device.quietSince else { continue }
      let quiet = now.timeIntervalSince(heard)
      if device.present && quiet >= device.exitTimeout {
        let before = device
        device.leave()
        devices[address] = device
        events += updateNarrowed(device, at: now, snapshot: before)
        events += fireDevice(.exit, before, at: now) { !$0.narrowsPresence }
      }
      if !device.silentReported && quiet >= file.settings.silentAfter {
        device.silentReported = true
        devices[address] = device
        events += fireDevice(.silent, device, at: now, silent: quiet) { $0.health.contains(.silent) }
      }
      queueDeadlines(device)
    }
    events += closeSessions(at: now)
    return events
  }

  /// Puts the device in the exit queue while present and in the silence queue until reported silent, each
  /// with its deadline from when it was last heard, unless it has an entry there already.
  mutating func queueDeadlines(_ device: TrackedDevice) {
    guard let heard = device.quietSince else { return }
    if device.present && !exitQueued.contains(device.key) {
      exits.push(heard + device.exitTimeout, device.key)
      exitQueued.insert(device.key)
    }
    if !device.silentReported && !silenceQueued.contains(device.key) {
      silences.push(heard + file.settings.silentAfter, device.key)
      silenceQueued.insert(device.key)
    }
  }

  /// The tracked state of a device heard now under `key` (an identity, or `address`), made on its first
  /// sighting; nil when an inventory is given and lists neither its key nor its address.
  func tracked(_ key: String, address: String) -> TrackedDevice? {
    if let known = devices[key] { return known }
    let row = inventory?.row(for: key) ?? inventory?.row(for: address)
    if inventory != nil && row == nil { return nil }
    let settings = file.settings
    return TrackedDevice(
      address: address, identity: BeaconIdentity.isIntended(key) ? key : nil, tags: row?.tags ?? [],
      enterRSSI: row?.variables["enterRSSI"].flatMap { Int($0) } ?? settings.enterRSSI,
      exitTimeout: row?.variables["exitTimeout"].flatMap { TimeInterval($0) } ?? settings.exitTimeout)
  }

  /// Enter/exit for definitions that narrow presence, from the device's state now. `snapshot` is what an
  /// exit reports (the device as it was before it left).
  mutating func updateNarrowed(_ device: TrackedDevice, at: Date, snapshot: TrackedDevice? = nil) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    for (index, definition) in file.definitions.enumerated()
    where definition.narrowsPresence && (definition.trigger == .enter || definition.trigger == .exit)
      && matches(definition, device)
    {
      let was = inside[index, default: []].contains(device.key)
      // A device inside stays inside until its smoothed RSSI is `hysteresisDB` under `minimumRSSI` (the
      // proximity class has its own hysteresis): enter and exit fired a second apart at the floor.
      let floor = definition.minimumRSSI.map { Double($0) - (was ? ProximityClassifier.hysteresisDB : 0) }
      let now =
        device.present && (definition.minimumProximity.map { device.proximity >= $0 } ?? true)
        && (floor.map { $0 <= (device.smoother.value ?? -.infinity) } ?? true)
      guard now != was else { continue }
      if now { inside[index, default: []].insert(device.key) } else { inside[index]?.remove(device.key) }
      let kind: PresenceEvent.Kind = now ? .enter : .exit
      guard definition.trigger == kind.trigger else { continue }
      if let event = fire(
        index, kind, subject: device.key, at: at,
        { event in
          event.device = (snapshot ?? device).snapshot
        })
      {
        events.append(event)
      }
    }
    return events
  }
}
