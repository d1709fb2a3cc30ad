import Foundation

/// What the monitor knows of one device between sightings: smoothed RSSI and proximity class, whether it is
/// present, when it was last heard, and the health facts it last advertised. Pure state; `PresenceEngine`
/// drives it and turns its changes into events.
///
/// A device is tracked under its address, or under its beacon identity when the inventory or an event names
/// it by one (`PresenceEngine`): then `address` follows the address it was last heard from, so a beacon that
/// rotates its address stays one device.
struct TrackedDevice: Sendable, Hashable {
  /// The canonical `BeaconIdentity` text the device is tracked under; nil when tracked by address.
  let identity: String?
  /// The address it was last heard from (its key when `identity` is nil).
  var address: String
  var name: String?
  var tags: Set<String>
  /// The inventory's `enterRSSI`, else the events file's.
  var enterRSSI: Int?
  /// The inventory's `exitTimeout`, else the events file's.
  var exitTimeout: TimeInterval
  var smoother = RSSISmoother()
  var rssi: Int?
  var measuredPower: Int?
  var proximity = Proximity.unknown
  var present = false
  var lastHeard: Date?
  /// An inventory device nothing has heard (no sighting, no kept state, no registry entry): when the monitor
  /// began watching for it, from which its silence counts (`PresenceEngine.watch`). nil once heard.
  var watchedSince: Date?
  var batteryPercent: Int?
  var batteryMillivolts: Int?
  var firmware: String?
  /// Health states already reported, so each fires once per crossing.
  var batteryLow = false
  var silentReported = false

  init(address: String, identity: String? = nil, tags: Set<String>, enterRSSI: Int?, exitTimeout: TimeInterval) {
    self.address = address
    self.identity = identity
    self.tags = tags
    self.enterRSSI = enterRSSI
    self.exitTimeout = exitTimeout
  }

  /// What one sighting changed.
  struct Change {
    var entered = false
    var proximityFrom: Proximity?
    var batteryFell = false
    var firmwareFrom: String?
  }

  /// Folds a sighting in. A device becomes present once its smoothed RSSI reaches `enterRSSI` (at its first
  /// sighting, RSSI or not, without one); the proximity change is reported only while it stays present.
  mutating func absorb(_ sighting: PresenceSighting, low: (percent: Int, millivolts: Int)) -> Change {
    var change = Change()
    if identity != nil { address = sighting.address }
    name = sighting.name ?? name
    lastHeard = sighting.at
    watchedSince = nil
    silentReported = false
    if let value = sighting.rssi {
      rssi = value
      smoother.add(value)
    }
    measuredPower = sighting.measuredPower ?? measuredPower
    let before = proximity
    proximity = ProximityClassifier.classify(rssi: smoother.value, measuredPower: measuredPower, previous: proximity)
    if present {
      if before != proximity { change.proximityFrom = before }
    } else if enterRSSI.map({ threshold in smoother.value.map { $0 >= Double(threshold) } ?? false }) ?? true {
      // Without a threshold a device enters even with no RSSI at all (a controller that reports none,
      // 127, as BlueZ's btvirt does); its proximity is then unknown.
      present = true
      change.entered = true
    }
    batteryPercent = sighting.batteryPercent ?? batteryPercent
    batteryMillivolts = sighting.batteryMillivolts ?? batteryMillivolts
    let isLow =
      (batteryPercent.map { $0 < low.percent } ?? false) || (batteryMillivolts.map { $0 < low.millivolts } ?? false)
    // [I] Re-armed once a reading is at or above the threshold again (a battery swapped).
    if isLow && !batteryLow { change.batteryFell = true }
    batteryLow = isLow
    if let version = sighting.firmware {
      if let known = firmware, known != version { change.firmwareFrom = known }
      firmware = version
    }
    return change
  }

  /// Ends presence: the RSSI average and proximity start afresh at the next sighting [I].
  mutating func leave() {
    present = false
    smoother = RSSISmoother(weight: smoother.weight)
    proximity = .unknown
  }

  /// Since when it has been quiet: when last heard, else since it was first watched for.
  var quietSince: Date? { lastHeard ?? watchedSince }

  /// What the engine keys it by: its identity, else its address.
  var key: String { identity ?? address }

  var snapshot: PresenceEvent.Device {
    PresenceEvent.Device(
      address: address, identity: identity, name: name, tags: tags.sorted(), rssi: rssi, smoothedRSSI: smoother.value,
      proximity: proximity,
      batteryPercent: batteryPercent, batteryMillivolts: batteryMillivolts, firmware: firmware, lastSeen: lastHeard)
  }
}
