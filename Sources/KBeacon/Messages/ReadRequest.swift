import JSON

/// A `getPara` read (docs/protocols/kbeacon.md §6.1 for v2, §7 for v1).
public enum ReadRequest: Hashable, Sendable {
  /// v2 `{"msg":"getPara","type":mask[,"slot":n][,"trType":n][,"srType":n]}`.
  case pro(ConfigSections, slot: Int? = nil, triggerType: Int? = nil, sensorType: Int? = nil)
  /// v1 `{"msg":"getPara","stype":mask[,"trType":n]}`; a trigger read must name `trType`.
  case legacy(LegacySections, triggerType: Int? = nil)

  public var json: JSONObject {
    var o: JSONObject = ["msg": .string("getPara")]
    switch self {
    case .pro(let sections, let slot, let trType, let srType):
      o["type"] = .int(sections.rawValue)
      if let slot { o["slot"] = .int(slot) }
      if let trType { o["trType"] = .int(trType) }
      if let srType { o["srType"] = .int(srType) }
    case .legacy(let sections, let trType):
      o["stype"] = .int(sections.rawValue)
      if let trType { o["trType"] = .int(trType) }
    }
    return o
  }

  public var bytes: [UInt8] { JSONWriter.bytes(.object(json)) }

  /// The reads of a full v2 configuration: at most two type bits per request (§3 step 5), so
  /// common+slots then triggers+sensors: `type:3`, then `type:12` (or `type:4` without sensors).
  public static func proFullRead(_ sections: ConfigSections = [.common, .slots, .triggers]) -> [ReadRequest] {
    var bits = [ConfigSections.common, .slots, .triggers, .sensors].filter { sections.contains($0) }
    var out: [ReadRequest] = []
    while !bits.isEmpty {
      let pair = bits.prefix(2).reduce(into: ConfigSections()) { $0.formUnion($1) }
      bits.removeFirst(min(2, bits.count))
      out.append(.pro(pair))
    }
    return out
  }

  /// The v1 initial read (`stype` 0x37) and one trigger read per supported v1 trigger type (bits of
  /// `trCap`, §7).
  public static func legacyFullRead(triggerCapability: Int) -> [ReadRequest] {
    [.legacy(.initialRead)]
      + [0x1, 0x2, 0x4, 0x8].filter { triggerCapability & $0 != 0 }.map { .legacy(.trigger, triggerType: $0) }
  }
}

/// Protocol generation detection (§1) [I]: try v2 first; these ack causes from a v2 read mean "retry as
/// v1"; a response carrying `modle` is v1 whatever was asked.
public enum GenerationDetection {
  public static let fallbackCauses: Set<DeviceCause> = [.invalidParameter, .jsonParseFailed, .unknownMessage]

  public static func shouldFallBackToLegacy(after error: KBeaconError) -> Bool {
    if case .deviceRejected(let cause) = error { return fallbackCauses.contains(cause) }
    return false
  }

  public static func generation(ofResponse root: JSONObject) -> ProtocolGeneration? {
    if root["modle"] != nil { return .legacy }
    if root["model"] != nil || root["advObj"] != nil { return .pro }
    return nil
  }
}

/// Parses a `getPara` response (the JSON text of the exchange's one message).
public enum ReadResponse {
  /// SDK minimum length of a JSON read response (A2 `MIN_JSON_MSG_LEN`).
  public static let minimumLength = 7

  public static func parse(_ bytes: [UInt8], generation: ProtocolGeneration) throws(KBeaconError)
    -> KBeaconConfiguration
  {
    guard bytes.count >= minimumLength else { throw .readNull }
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes)
    } catch {
      throw .jsonError("\(error.message) at byte \(error.position.offset)")
    }
    guard let root = value.objectValue else { throw .jsonError("response is not a JSON object") }
    return try KBeaconConfiguration(
      deviceJSON: root, generation: GenerationDetection.generation(ofResponse: root) ?? generation)
  }
}
