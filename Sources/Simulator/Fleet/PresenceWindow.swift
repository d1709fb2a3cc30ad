/// When a simulated device is on the air, for scripting presence (the monitor's tests and demo): a device with a `presence`
/// list advertises only inside its windows, in seconds since the scan started (or, under `sim serve`,
/// since serving started) [I]: `"presence": [{"from": 0, "to": 10}, {"from": 20}]` is heard for its first
/// 10 s, silent for 10 s, then heard for good. `from` is inclusive, `to` exclusive; no `to` is forever.
/// A device with no `presence` advertises all the time.
///
/// `"clock": "simulation"` counts a window's seconds from the simulation's start (the process serving the
/// fleet) instead of each scan's start, so a device comes and goes across the many scans of a long
/// `reconcile` run [I]; `KBeaconSimulation` turns such windows into the scan's time line when a
/// scan starts (`relative(toScanAt:)`). Only KBeacon kinds are shifted.
public struct PresenceWindow: Sendable, Hashable, Codable {
  public var from: Double
  public var to: Double?
  /// "scan" (the default) or "simulation".
  public var clock: String?

  public init(from: Double, to: Double? = nil, clock: String? = nil) {
    self.from = from
    self.to = to
    self.clock = clock
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case from, to, clock }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      from: try c.decode(Double.self, forKey: .from), to: try c.decodeIfPresent(Double.self, forKey: .to),
      clock: try c.decodeIfPresent(String.self, forKey: .clock))
    if let clock, !["scan", "simulation"].contains(clock) {
      throw invalidValue(decoder, CodingKeys.clock, "'\(clock)' is not scan or simulation")
    }
    guard from >= 0, from.isFinite else {
      throw invalidValue(decoder, CodingKeys.from, "\(from) s is before the start")
    }
    if let to, !(to > from) {
      throw invalidValue(decoder, CodingKeys.to, "the window ends (\(to) s) before it starts (\(from) s)")
    }
  }
}

extension [PresenceWindow] {
  /// The windows on the time line of a scan that starts `elapsed` seconds into the simulation: windows on
  /// the simulation's clock move back by `elapsed` (those already over are dropped), the others stay.
  public func relative(toScanAt elapsed: Double) -> [PresenceWindow] {
    compactMap { window in
      guard window.clock == "simulation" else { return window }
      if let to = window.to, to - elapsed <= 0 { return nil }
      return PresenceWindow(from: Swift.max(0, window.from - elapsed), to: window.to.map { $0 - elapsed })
    }
  }

  /// Where a device stands at `offset`: on the air, silent until a later offset, or silent for good.
  public func state(at offset: Duration) -> PresenceState {
    let seconds = Double(offset.components.seconds) + Double(offset.components.attoseconds) / 1e18
    if contains(where: { $0.from <= seconds && $0.to.map { seconds < $0 } ?? true }) { return .onAir }
    let next = map(\.from).filter { $0 > seconds }.min()
    return next.map { .silentUntil(.milliseconds(Int64(($0 * 1000).rounded(.up)))) } ?? .gone
  }
}

public enum PresenceState: Sendable, Hashable {
  case onAir
  case silentUntil(Duration)
  case gone
}
