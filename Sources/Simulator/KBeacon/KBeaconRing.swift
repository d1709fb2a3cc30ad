import KBeacon

/// The alert of a simulated KBeacon (docs/protocols/kbeacon.md §6.7 `ring`), kept per link: real tags ring only
/// while a central stays connected (§14 item 6, HAR), so a new link starts silent.
///
/// A `ring` that arrives while one is in progress is acknowledged like any ring but does not restart it —
/// a client that resends a request it believes unanswered (HAR resends while an ack's seq is below the
/// request length, see `SimulatedKBeaconDevice`) must not turn one alert into a hundred. A v2 `ringType`
/// 0 ("stop", KKM README §4.3.7.1) ends the alert; on v1 firmware 0 means "LED only" and is a ring.
///
/// The simulated device clock counts whole seconds, so a ring counts as in progress until its end rounded
/// up to the next whole second [I].
struct KBeaconRing: Sendable, Equatable {
  enum Outcome: Equatable, Sendable {
    /// The device starts alerting (or stops, for a stop request): the command is executed.
    case executed
    /// A ring is already in progress; the request changes nothing.
    case alreadyRinging
  }

  /// Device seconds at which the current alert ends; nil while silent.
  private(set) var endsAt: UInt32?

  /// Whether an alert is in progress at device time `now`.
  func isRinging(at now: UInt32) -> Bool { endsAt.map { now < $0 } ?? false }

  /// A `ring` request at device time `now` on firmware of `generation`.
  mutating func receive(milliseconds: Int, type: Int, generation: ProtocolGeneration, at now: UInt32) -> Outcome {
    if generation == .pro && type == 0 {
      endsAt = nil
      return .executed
    }
    guard !isRinging(at: now) else { return .alreadyRinging }
    let seconds = (max(0, milliseconds) + 999) / 1000
    endsAt = UInt32(clamping: Int(now) + seconds)
    return .executed
  }
}
