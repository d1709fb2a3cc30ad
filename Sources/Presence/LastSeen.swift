import Foundation

/// When and where the fleet registry last saw a device an inventory may name (`PresenceEngine.remember`):
/// keyed by its address, or by a beacon identity it showed there — any gateway's monitor, `scan` or
/// `audit` that wrote to the registry counts.
public struct LastSeen: Sendable, Hashable {
  /// The address it was heard at.
  public var address: String
  public var at: Date

  public init(address: String, at: Date) {
    self.address = address
    self.at = at
  }

  /// One entry per address and per identity shown at it, the latest wherever a key occurs more than once
  /// (a beacon that rotates its address shows one identity at several).
  public static func index(_ devices: [(address: String, identities: [String], at: Date)]) -> [String: LastSeen] {
    var index: [String: LastSeen] = [:]
    for device in devices {
      let seen = LastSeen(address: device.address, at: device.at)
      for key in [device.address] + device.identities where index[key].map({ $0.at < seen.at }) ?? true {
        index[key] = seen
      }
    }
    return index
  }
}
