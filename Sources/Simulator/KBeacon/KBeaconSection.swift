import JSON
import KBeacon

/// The `kbeacon` section of a fleet-file device entry (KBeacon kinds only): what its simulated configuration
/// service starts with. Every key is optional:
///
/// ```json
/// "kbeacon": { "password": "0000000000000000", "settings": { "name": "door", "advObj": [{ "slot": 0, "txPwr": -4 }] },
///              "historyRecords": 48, "busy": false }
/// ```
/// - `password`: 8–16 characters (default: the factory default, sixteen zeros).
/// - `settings`: device JSON in the `getPara` shape of the device's generation, merged over its factory
///   configuration (docs/protocols/kbeacon.md §6.1 / §7).
/// - `historyRecords`: temperature/humidity records pre-logged, 5 minutes apart, the newest at start-up
///   (default 24).
/// - `busy`: answer every request with cause 0x10C (fault injection).
/// - `busyRequests`: answer only the first N requests busy (a transient fault a retry gets past).
/// - `dropLinkOnWrites`: drop the link on the first N `cfg` messages before applying them (link lost
///   mid-write).
/// - `dropLinkOnReads`, `dropLinkAfterWrites`, `rebootAtRequest`: the link lost before a write, right after
///   one, and a reboot mid-session (`KBeaconFaults`). Counters are 0…100; `rebootAtRequest` is 1…10000.
/// - `drift`: the configuration changes on its own at a set time (`KBeaconDrift`).
public struct KBeaconSection: Sendable, Hashable, Codable {
  public var password: String?
  public var settings: JSONValue?
  public var historyRecords: Int?
  public var busy: Bool?
  public var busyRequests: Int?
  public var dropLinkOnWrites: Int?
  public var dropLinkOnReads: Int?
  public var dropLinkAfterWrites: Int?
  public var rebootAtRequest: Int?
  public var drift: KBeaconDrift?

  public init(
    password: String? = nil, settings: JSONValue? = nil, historyRecords: Int? = nil, busy: Bool? = nil,
    busyRequests: Int? = nil, dropLinkOnWrites: Int? = nil, dropLinkOnReads: Int? = nil,
    dropLinkAfterWrites: Int? = nil, rebootAtRequest: Int? = nil, drift: KBeaconDrift? = nil
  ) {
    self.drift = drift
    self.dropLinkOnReads = dropLinkOnReads
    self.dropLinkAfterWrites = dropLinkAfterWrites
    self.rebootAtRequest = rebootAtRequest
    self.busyRequests = busyRequests
    self.dropLinkOnWrites = dropLinkOnWrites
    self.password = password
    self.settings = settings
    self.historyRecords = historyRecords
    self.busy = busy
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case password, settings, historyRecords, busy, busyRequests, dropLinkOnWrites
    case dropLinkOnReads, dropLinkAfterWrites, rebootAtRequest, drift
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    password = try c.decodeIfPresent(String.self, forKey: .password)
    settings = try c.decodeIfPresent(JSONValue.self, forKey: .settings)
    historyRecords = try c.decodeIfPresent(Int.self, forKey: .historyRecords)
    busy = try c.decodeIfPresent(Bool.self, forKey: .busy)
    busyRequests = try c.decodeIfPresent(Int.self, forKey: .busyRequests)
    dropLinkOnWrites = try c.decodeIfPresent(Int.self, forKey: .dropLinkOnWrites)
    dropLinkOnReads = try c.decodeIfPresent(Int.self, forKey: .dropLinkOnReads)
    dropLinkAfterWrites = try c.decodeIfPresent(Int.self, forKey: .dropLinkAfterWrites)
    rebootAtRequest = try c.decodeIfPresent(Int.self, forKey: .rebootAtRequest)
    drift = try c.decodeIfPresent(KBeaconDrift.self, forKey: .drift)
    let counters = [
      (CodingKeys.busyRequests, busyRequests), (.dropLinkOnWrites, dropLinkOnWrites),
      (.dropLinkOnReads, dropLinkOnReads),
      (.dropLinkAfterWrites, dropLinkAfterWrites),
    ]
    for (key, n) in counters {
      if let n, !(0...100).contains(n) { throw invalidValue(decoder, key, "\(n) is outside 0…100") }
    }
    if let n = rebootAtRequest, !(1...10_000).contains(n) {
      throw invalidValue(decoder, CodingKeys.rebootAtRequest, "\(n) is outside 1…10000")
    }
    if let password, (try? KBeaconPassword(password)) == nil {
      throw invalidValue(decoder, CodingKeys.password, "a KBeacon password has 8 to 16 characters")
    }
    if let settings, settings.objectValue == nil {
      throw invalidValue(decoder, CodingKeys.settings, "settings must be a JSON object in the getPara shape")
    }
    if let n = historyRecords, !(0...10_000).contains(n) {
      throw invalidValue(decoder, CodingKeys.historyRecords, "\(n) is outside 0…10000")
    }
  }
}

extension KBeaconSection {
  /// The section's `KBeaconFaults` (absent keys: no fault).
  var faults: KBeaconFaults {
    KBeaconFaults(
      dropLinkOnReads: dropLinkOnReads ?? 0, dropLinkAfterWrites: dropLinkAfterWrites ?? 0,
      rebootAtRequest: rebootAtRequest)
  }
}
