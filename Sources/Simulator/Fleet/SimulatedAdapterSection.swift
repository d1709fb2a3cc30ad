/// The `adapter` section of a fleet file: the simulated controller itself, not a device.
///
/// ```json
/// "adapter": { "links": 16 }
/// ```
/// - `links`: concurrent LE links the controller holds, 1…32 (default 5, `SimulatedGATTLinks`). Real
///   controllers hold 3–7 (docs/protocols/linux-ble.md §4 item 6); more is for measuring the scheduler past them
///   (`provision-bench apply-scaling`) [I: the bound 32 is a choice].
public struct SimulatedAdapterSection: Sendable, Hashable, Codable {
  public var links: Int?

  public init(links: Int? = nil) { self.links = links }

  enum CodingKeys: String, CodingKey, CaseIterable { case links }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    links = try c.decodeIfPresent(Int.self, forKey: .links)
    if let links, !(1...32).contains(links) {
      throw invalidValue(decoder, CodingKeys.links, "\(links) is outside 1…32")
    }
  }
}
