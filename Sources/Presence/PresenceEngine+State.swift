import BeaconCore
import Foundation

extension PresenceEngine {
  /// The state to keep across a restart (`PresenceState`), in a stable order.
  public var state: PresenceState {
    var state = PresenceState()
    state.devices = devices.values.sorted { $0.key < $1.key }.compactMap { d in
      guard d.quietSince != nil else { return nil }
      let address = d.identity == nil || d.lastHeard == nil ? nil : d.address
      return PresenceState.Device(
        address: d.key, lastAddress: address, name: d.name, present: d.present, lastHeard: d.lastHeard,
        watchedSince: d.lastHeard == nil ? d.watchedSince : nil, rssi: d.rssi, smoothedRSSI: d.smoother.value,
        measuredPower: d.measuredPower, proximity: d.proximity, batteryPercent: d.batteryPercent,
        batteryMillivolts: d.batteryMillivolts,
        firmware: d.firmware, batteryLow: d.batteryLow, silentReported: d.silentReported)
    }
    state.tags = tags.values.sorted { $0.tag < $1.tag }.compactMap { t in
      guard let id = t.id, let heard = t.lastHeard else { return nil }
      return PresenceState.Tag(tag: t.tag, session: id, devices: t.devices.sorted(), lastHeard: heard)
    }
    state.fired = fired.sorted { ($0.key.definition, $0.key.subject) < ($1.key.definition, $1.key.subject) }.map {
      PresenceState.Fired(definition: file.definitions[$0.key.definition].name, subject: $0.key.subject, at: $0.value)
    }
    for (index, addresses) in inside where !addresses.isEmpty {
      state.inside[file.definitions[index].name] = addresses.sorted()
    }
    return state
  }

  /// Puts back a state kept by an earlier run, before any sighting: present devices stay present (no new
  /// `enter`), open sessions stay open (no new `session-open`), trigger-once, cooldowns and reported health
  /// hold. Timeouts run from the kept last-heard times, so a device that left while the monitor was down
  /// gets its `exit` at the first tick. Devices the inventory no longer lists and definitions no longer in
  /// the events file are dropped; the inventory's and events file's current settings apply.
  public mutating func restore(_ state: PresenceState) {
    for kept in state.devices {
      guard var device = tracked(kept.address, address: kept.lastAddress ?? kept.address) else { continue }
      device.name = kept.name
      device.present = kept.present
      device.lastHeard = kept.lastHeard
      device.watchedSince = kept.lastHeard == nil ? kept.watchedSince : nil
      device.rssi = kept.rssi
      device.smoother = RSSISmoother(weight: device.smoother.weight, value: kept.smoothedRSSI)
      device.measuredPower = kept.measuredPower
      device.proximity = kept.proximity
      device.batteryPercent = kept.batteryPercent
      device.batteryMillivolts = kept.batteryMillivolts
      device.firmware = kept.firmware
      device.batteryLow = kept.batteryLow
      device.silentReported = kept.silentReported
      devices[device.key] = device
      queueDeadlines(device)
    }
    for kept in state.tags {
      var session = TagSession(tag: kept.tag)
      session.id = kept.session
      session.devices = Set(kept.devices)
      session.lastHeard = kept.lastHeard
      tags[kept.tag] = session
      let closes = kept.lastHeard + file.settings.tagTimeout(kept.tag)
      nextTagClose = min(nextTagClose ?? closes, closes)
    }
    let index = Dictionary(
      file.definitions.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
    for kept in state.fired {
      guard let definition = index[kept.definition] else { continue }
      fired[FireKey(definition: definition, subject: kept.subject)] = kept.at
    }
    for (name, addresses) in state.inside {
      guard let definition = index[name] else { continue }
      inside[definition] = Set(addresses.filter { devices[$0]?.present == true })
    }
  }

  /// With an inventory: each listed device not known yet from `restore` is taken as last heard when the
  /// fleet registry last saw it (otherwise an inventory device never heard since the start was never
  /// reported `silent`). `lastSeen` is keyed by address, and by each beacon identity the registry saw a device
  /// show (`LastSeen.address` says where); an identity counts only when the inventory or an event names it,
  /// as in `observe`. It is not present (no `exit` comes for it); its `silent` comes once the silent
  /// threshold has passed since then. Without an inventory nothing is done: the registry also holds phones
  /// and passers-by, whose silence nobody asked about.
  public mutating func remember(lastSeen: [String: LastSeen]) {
    guard inventory != nil else { return }
    for (key, seen) in lastSeen.sorted(by: { $0.key < $1.key }) where devices[key]?.lastHeard == nil {
      guard !BeaconIdentity.isIntended(key) || named.contains(key),
        var device = tracked(key, address: seen.address)
      else { continue }
      device.lastHeard = seen.at
      device.watchedSince = nil
      devices[device.key] = device
      queueDeadlines(device)
    }
  }

  /// With an inventory: each listed device — by address or by beacon identity — that nothing has heard (no
  /// sighting yet, no kept state, no registry time: `remember` can give a last-seen only to addresses, the
  /// registry's key) is watched for from `start`, so it is reported `silent` once the silent threshold has
  /// passed since then, as a device the registry last saw is from that time. Its events carry no `lastSeen`;
  /// [I] an identity never heard has no address, so its events carry the identity as `address` too. It is kept
  /// across a restart (`PresenceState.Device.watchedSince`), so a restart neither restarts its clock nor
  /// reports it again.
  public mutating func watch(since start: Date) {
    guard let inventory else { return }
    for row in inventory.rows where devices[row.address] == nil {
      guard var device = tracked(row.address, address: row.address) else { continue }
      device.watchedSince = start
      devices[device.key] = device
      queueDeadlines(device)
    }
  }
}
