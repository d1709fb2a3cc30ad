/// Link faults of a simulated KBeacon beyond busy answers and `dropLinkOnWrites` (fleet file `kbeacon`
/// section; the fault matrix, `scripts/fault-matrix`, drives them). Each counter counts down as it fires.
/// Together with `dropLinkOnWrites` (the whole `cfg` received, the link lost before it applies) they cover a
/// link lost before, during and right after a configuration write (docs/protocols/kbeacon.md §4, §6.2):
/// - `dropLinkOnReads`: the first N `getPara` requests drop the link unanswered (lost before any write).
/// - `dropLinkAfterWrites`: the first N `cfg` messages are applied and saved (flash), then the link drops
///   before their ack goes out: the app cannot know the write landed and must read back.
/// - `rebootAtRequest`: the device reboots when the Nth request (a JSON or hex message, counted from its
///   start-up, 1-based; authentication frames do not count) begins
///   to arrive: the link drops unanswered and what RAM held is gone — authentication, a half-received
///   message, the clock offset set by auth, a ring — while flash (configuration, password, history) stays.
///   The spec does not say how a reboot looks to the app; a link loss with no answer is what a reset
///   radio gives [I].
public struct KBeaconFaults: Sendable, Hashable {
  public var dropLinkOnReads: Int
  public var dropLinkAfterWrites: Int
  public var rebootAtRequest: Int?

  public init(dropLinkOnReads: Int = 0, dropLinkAfterWrites: Int = 0, rebootAtRequest: Int? = nil) {
    self.dropLinkOnReads = dropLinkOnReads
    self.dropLinkAfterWrites = dropLinkAfterWrites
    self.rebootAtRequest = rebootAtRequest
  }
}
