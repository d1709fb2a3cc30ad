/// When a simulated device is on the air, for scripting presence (the monitor's tests and demo): a device with a `presence`
/// list advertises only inside its windows, in seconds since the scan started (or, under `sim serve`,
/// since serving started) [I]: `"presence": [{"from": 0, "to": 10}, {"from": 20}]` is heard for its first
/// 10 s, silent for 10 s, then heard for good. `from` is inclusive, `to` exclusive; no `to` is forever.
/// A device with no `presence` advertises all the time.
public struct PresenceWindow: Sendable, Hashable, Codable {
  public var from: Double
  public var to: Double?

  public init(from: Double, to: Double? = nil) {
    self.from = from
    self.to = to
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case from, to }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(from: try c.decode(Double.self, forKey: .from), to: try c.decodeIfPresent(Double.self, forKey: .to))
    guard from >= 0, from.isFinite else {
      throw invalidValue(decoder, CodingKeys.from, "\(from) s is before the start")
    }
    if let to, !(to > from) {
      throw invalidValue(decoder, CodingKeys.to, "the window ends (\(to) s) before it starts (\(from) s)")
    }
  }
}

extension [PresenceWindow] {
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
