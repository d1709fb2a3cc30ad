import Foundation

/// What a monitor must remember across a restart (a restarted monitor must not fire its events again): which devices are
/// present and when each was last heard, the open tag sessions, which definitions fired for which subject
/// and when (trigger-once, cooldowns), which devices are inside a narrowing definition, and the health
/// states already reported (battery low, silent). `PresenceEngine.state` takes it, `restore` puts it back;
/// the monitor keeps it as JSON in its state directory.
///
/// [I] Definitions are named by their `name` (unique in an events file), not their position, so an edited
/// events file keeps what its unchanged events did; state of a definition no longer in the file is dropped.
public struct PresenceState: Codable, Sendable, Equatable {
  public var schema = "beacon-provision/monitor-state/v1"
  public var devices: [Device] = []
  public var tags: [Tag] = []
  public var fired: [Fired] = []
  /// Per narrowing definition's name, the devices inside it.
  public var inside: [String: [String]] = [:]

  public struct Device: Codable, Sendable, Equatable {
    /// The device's key: its address, or the beacon identity it is tracked under (`PresenceEngine`).
    public var address: String
    /// Tracked by identity: the address it was last heard from (absent in states kept before identities).
    public var lastAddress: String?
    public var name: String?
    public var present: Bool
    /// nil for an inventory device never heard (then `watchedSince` is set).
    public var lastHeard: Date?
    /// An inventory device never heard: since when the monitor has watched for it (`PresenceEngine.watch`).
    public var watchedSince: Date?
    public var rssi: Int?
    public var smoothedRSSI: Double?
    public var measuredPower: Int?
    public var proximity: Proximity
    public var batteryPercent: Int?
    public var batteryMillivolts: Int?
    public var firmware: String?
    public var batteryLow: Bool
    public var silentReported: Bool
  }

  public struct Tag: Codable, Sendable, Equatable {
    public var tag: String
    public var session: String
    public var devices: [String]
    public var lastHeard: Date
  }

  public struct Fired: Codable, Sendable, Equatable {
    public var definition: String
    public var subject: String
    public var at: Date
  }

  public init() {}
}
