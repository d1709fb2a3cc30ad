/// Which gateway handles a device when several hear it: a gateway leaves a device to another that
/// heard it clearly better in the last minute, so each device is handled by the gateway nearest to it.
/// Pure: the sightings come in, the decision comes out; `GatewayCoordinator` feeds it the sightings of live
/// gateways within `CoordinationSettings.sightingWindow`.
///
/// "Clearly better" is `margin` dB or more [I: 6 dB by default, `--gateway-margin`; about half the distance
/// in free space, above the few dB RSSI wanders between two advertisements]. Gateways within the margin of
/// each other are equals: whichever claims the device first (its lease) handles it.
public struct NearestGatewayRule: Sendable, Hashable {
  public var margin: Int

  public init(margin: Int = 6) { self.margin = margin }

  /// One gateway's latest RSSI for the device.
  public struct Sighting: Sendable, Hashable {
    public var gateway: String
    public var rssi: Int
    public init(gateway: String, rssi: Int) { (self.gateway, self.rssi) = (gateway, rssi) }
  }

  public enum Decision: Sendable, Hashable {
    /// This gateway may claim the device.
    case take
    /// Another gateway heard it `margin` dB or more better: leave it to that one (the best such gateway).
    case leave(to: String, rssi: Int)
    /// This gateway has not heard the device lately: it could not connect.
    case notHeard
  }

  public func decide(gateway: String, sightings: [Sighting]) -> Decision {
    guard let mine = sightings.filter({ $0.gateway == gateway }).map(\.rssi).max() else { return .notHeard }
    let better = sightings.filter { $0.gateway != gateway && $0.rssi >= mine + margin }
    guard let best = better.max(by: { ($0.rssi, $1.gateway) < ($1.rssi, $0.gateway) }) else { return .take }
    return .leave(to: best.gateway, rssi: best.rssi)
  }
}

/// The timing of coordination between gateways [I: each value a flag of `apply`/`dfu update`].
public struct CoordinationSettings: Sendable, Hashable {
  /// How long a claim holds without renewal; a gateway that dies loses its devices this long after its last
  /// renewal. Also how long a gateway counts as alive after its last heartbeat.
  public var leaseSeconds: Double
  /// Sightings older than this are ignored (issue: "in the last minute").
  public var sightingWindowSeconds: Double
  public var rule: NearestGatewayRule

  public init(
    leaseSeconds: Double = 30, sightingWindowSeconds: Double = 60, rule: NearestGatewayRule = NearestGatewayRule()
  ) {
    (self.leaseSeconds, self.sightingWindowSeconds, self.rule) = (leaseSeconds, sightingWindowSeconds, rule)
  }

  /// How often a gateway renews its leases and heartbeat: three times per lease, so one late renewal
  /// (a slow server, a busy machine) does not lose them.
  public var renewalSeconds: Double { leaseSeconds / 3 }
}
