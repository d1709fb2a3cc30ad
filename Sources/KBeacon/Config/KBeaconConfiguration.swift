import JSON

/// Which JSON schema a device speaks (docs/protocols/kbeacon.md §1).
public enum ProtocolGeneration: String, Sendable, Hashable, Codable {
  /// v2, KBeacon Pro (`kbeaconlib2`): slots, triggers and sensors in arrays.
  case pro
  /// v1, legacy KBeacon (`kbeaconlib`): one flat object plus `trObj`.
  case legacy
}

/// A device's configuration as the device JSON holds it (docs/protocols/kbeacon.md §6.1–§6.6, §7), losslessly:
/// every key of the device's JSON is kept (known or not), in order, with the device's number text.
///
/// v2: `common` holds the root keys; `slots`/`triggers`/`sensors` the `advObj`/`trObj`/`srObj` entries.
/// v1: `common` holds the whole flat object (validated against `.legacyCommon` rows); `triggers` holds
/// `trObj` entries keyed by `trType`; `slots` and `sensors` stay empty.
///
/// The only normalisation [I]: the device JSON comes back with the root keys first and the arrays last in
/// the order `advObj`, `trObj`, `srObj` (the order the SDKs write them).
public struct KBeaconConfiguration: Sendable, Hashable {
  public var generation: ProtocolGeneration
  public var common: CommonConfig
  public var slots: [SlotConfig]
  public var triggers: [TriggerConfig]
  public var sensors: [SensorConfig]

  public static let arrayKeys = ["advObj", "trObj", "srObj"]

  public init(
    generation: ProtocolGeneration = .pro, common: CommonConfig = CommonConfig(), slots: [SlotConfig] = [],
    triggers: [TriggerConfig] = [], sensors: [SensorConfig] = []
  ) {
    self.generation = generation
    self.common = common
    self.slots = slots
    self.triggers = triggers
    self.sensors = sensors
  }

  /// Splits a device JSON object. An array element that is not an object is a JSON error.
  public init(deviceJSON root: JSONObject, generation: ProtocolGeneration) throws(KBeaconError) {
    self.init(generation: generation)
    for (key, value) in root {
      if Self.arrayKeys.contains(key) {
        guard let items = value.arrayValue else { throw .jsonError("\(key) is not an array") }
        var objects: [JSONObject] = []
        for item in items {
          guard let object = item.objectValue else { throw .jsonError("an entry of \(key) is not an object") }
          objects.append(object)
        }
        switch key {
        case "advObj": slots += objects.map(SlotConfig.init(fields:))
        case "trObj": triggers += objects.map(TriggerConfig.init(fields:))
        default: sensors += objects.map(SensorConfig.init(fields:))
        }
      } else {
        common.fields[key] = value
      }
    }
  }

  /// The device JSON: root keys, then the non-empty arrays.
  public var deviceJSON: JSONObject {
    var root = common.fields
    if !slots.isEmpty { root["advObj"] = .array(slots.map { .object($0.fields) }) }
    if !triggers.isEmpty { root["trObj"] = .array(triggers.map { .object($0.fields) }) }
    if !sensors.isEmpty { root["srObj"] = .array(sensors.map { .object($0.fields) }) }
    return root
  }

  public func slot(_ index: Int) -> SlotConfig? { slots.first { $0.identity == index } }
  public func trigger(_ index: Int) -> TriggerConfig? { triggers.first { $0.identityValue(generation) == index } }
  public func sensor(_ type: SensorType) -> SensorConfig? { sensors.first { $0.identity == type.rawValue } }

  /// Folds another read (e.g. the second `getPara` of §3 step 5) or an accepted write into this one:
  /// root keys are replaced, entries with the same identity merge key by key, new entries are appended.
  public mutating func merge(_ other: KBeaconConfiguration) {
    for (key, value) in other.common.fields { common.fields[key] = value }
    Self.merge(other.slots, into: &slots) { $0.identity }
    Self.merge(other.triggers, into: &triggers) { [generation] in $0.identityValue(generation) }
    Self.merge(other.sensors, into: &sensors) { $0.identity }
  }

  static func merge<E: ConfigEntry>(_ incoming: [E], into existing: inout [E], identity: (E) -> Int?) {
    for entry in incoming {
      if let id = identity(entry), let i = existing.firstIndex(where: { identity($0) == id }) {
        for (key, value) in entry.fields { existing[i].fields[key] = value }
      } else {
        existing.append(entry)
      }
    }
  }

  /// Every value that breaks the key table, as "path: reason".
  public func problems() -> [String] {
    let flat = flattened()
    return flat.compactMap { item in
      guard let row = ConfigPath(item.path).flatMap({ spec(for: $0) }) else { return nil }
      return row.problem(with: item.value).map { "\(item.path) — \($0)" }
    }
  }

  /// The table row for a path in this configuration (uses the entry's type to pick type-bound rows).
  public func spec(for path: ConfigPath) -> ConfigKeySpec? {
    switch (generation, path.array) {
    case (.pro, nil): return KeyTable.spec(for: path.key, in: .common)
    case (.legacy, nil): return KeyTable.spec(for: path.key, in: .legacyCommon)
    case (.pro, "advObj"):
      return KeyTable.spec(for: path.key, in: .slot, type: slot(path.identity ?? -1)?.fields["type"]?.intValue)
    case (.pro, "trObj"):
      return KeyTable.spec(for: path.key, in: .trigger, type: trigger(path.identity ?? -1)?.fields["trType"]?.intValue)
    case (.legacy, "trObj"): return KeyTable.spec(for: path.key, in: .legacyTrigger, type: path.identity)
    case (.pro, "srObj"): return KeyTable.spec(for: path.key, in: .sensor, type: path.identity)
    default: return nil
    }
  }
}

extension TriggerConfig {
  /// `trIdx` for v2, `trType` for v1 (v1 triggers have no index, §7).
  func identityValue(_ generation: ProtocolGeneration) -> Int? {
    generation == .pro ? identity : fields["trType"]?.intValue
  }
}
