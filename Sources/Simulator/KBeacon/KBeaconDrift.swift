import JSON
import KBeacon

/// A simulated KBeacon's configuration changing on its own (`reconcile`'s tests and demo): the
/// `drift` key of a fleet-file device's `kbeacon` section,
///
/// ```json
/// "kbeacon": { "drift": { "after": 20, "set": { "name": "stray" } } }
/// ```
///
/// - `after`: seconds after the simulation started (the process that serves the fleet) [I: wall-clock
///   time, as `sim serve` and a long `reconcile` run, not the scan's presence offset];
/// - `set`: device JSON in the `getPara` shape of the device's generation (docs/protocols/kbeacon.md §6.1 /
///   §7), merged over the configuration the device has then — as a user with the vendor's app would leave it.
///
/// It happens once per process, is saved with the device's state like a write (but is no `cfg` write: the
/// write log does not count it), and is seen on the air and by a `getPara` read alike, through the same
/// advertising and GATT paths as every other change [I: a later process drifts the device again `after`
/// seconds from its own start].
public struct KBeaconDrift: Sendable, Hashable, Codable {
  public var after: Double
  public var set: JSONValue

  public init(after: Double, set: JSONValue) { (self.after, self.set) = (after, set) }

  enum CodingKeys: String, CodingKey, CaseIterable { case after, set }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    after = try c.decode(Double.self, forKey: .after)
    set = try c.decode(JSONValue.self, forKey: .set)
    guard after.isFinite, after >= 0 else { throw invalidValue(decoder, CodingKeys.after, "\(after) is not ≥ 0 s") }
    guard set.objectValue != nil else {
      throw invalidValue(decoder, CodingKeys.set, "set must be a JSON object in the getPara shape")
    }
  }

  /// `set` as a configuration overlay for this generation (nil: keys that generation does not have).
  func overlay(_ generation: ProtocolGeneration) -> KBeaconConfiguration? {
    set.objectValue.flatMap { try? KBeaconConfiguration(deviceJSON: $0, generation: generation) }
  }
}
