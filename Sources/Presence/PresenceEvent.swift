import Foundation
import JSON

/// One event that fired: which definition, what happened, to which device or tag, and when. Events come
/// out of `PresenceEngine` in the order they happened; `sequence` counts them from 1 for the engine's life.
public struct PresenceEvent: Sendable, Hashable {
  /// What happened.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// A device came in (first heard, or rose above a threshold).
    case enter
    /// A device went out (unheard for its timeout, or fell below a definition's threshold).
    case exit
    /// A present device's proximity class changed.
    case proximity
    /// A tag's session opened: the first of its devices came in.
    case sessionOpen = "session-open"
    /// A tag's session closed: the last of its devices has been silent for the tag's timeout.
    case sessionClose = "session-close"
    /// The battery fell under the threshold.
    case batteryLow = "battery-low"
    /// The device has not been heard for longer than the silent threshold.
    case silent
    /// The advertised firmware version changed.
    case firmwareChanged = "firmware-changed"

    public var trigger: EventTrigger {
      switch self {
      case .enter, .sessionOpen: .enter
      case .exit, .sessionClose: .exit
      case .proximity: .proximity
      case .batteryLow, .silent, .firmwareChanged: .health
      }
    }
  }

  /// A device as it stands when the event fires.
  public struct Device: Sendable, Hashable {
    /// The address it was last heard from.
    public var address: String
    /// The beacon identity it is tracked under (`BeaconIdentity`'s canonical text), when the inventory or the
    /// event names it by one.
    public var identity: String?
    public var name: String?
    public var tags: [String]
    public var rssi: Int?
    public var smoothedRSSI: Double?
    public var proximity: Proximity
    public var batteryPercent: Int?
    public var batteryMillivolts: Int?
    public var firmware: String?
    public var lastSeen: Date?

    public init(
      address: String, identity: String? = nil, name: String?, tags: [String], rssi: Int?, smoothedRSSI: Double?,
      proximity: Proximity,
      batteryPercent: Int?, batteryMillivolts: Int?, firmware: String?, lastSeen: Date?
    ) {
      self.address = address
      self.identity = identity
      self.name = name
      self.tags = tags
      self.rssi = rssi
      self.smoothedRSSI = smoothedRSSI
      self.proximity = proximity
      self.batteryPercent = batteryPercent
      self.batteryMillivolts = batteryMillivolts
      self.firmware = firmware
      self.lastSeen = lastSeen
    }
  }

  public var sequence: Int
  /// The definition that fired.
  public var name: String
  public var kind: Kind
  public var at: Date
  /// Device events: the device. Tag events: nil.
  public var device: Device?
  /// Tag events: the tag, its session id and the devices present when it opened or last heard (each by its
  /// address, or by its beacon identity when tracked under one).
  public var tag: String?
  public var session: String?
  public var tagDevices: [String]?
  /// Proximity: the class before (the new one is `device.proximity`); firmware: the version before.
  public var previous: String?
  /// Silent: seconds since the device was last heard.
  public var silentSeconds: Double?
  public var actions: [EventAction]
  /// The definition's operator message and payload (`EventOperatorFields`).
  public var message: String?
  public var payload: JSONValue?

  /// An event with no device or tag yet (the engine fills in the subject).
  public init(sequence: Int, name: String, kind: Kind, at: Date, actions: [EventAction]) {
    self.sequence = sequence
    self.name = name
    self.kind = kind
    self.at = at
    self.actions = actions
  }

  /// What delivery keeps in order: the device's identity or address, or `tag:NAME` for a tag's events.
  public var orderKey: String { device.map { $0.identity ?? $0.address } ?? "tag:\(tag ?? "")" }
}
