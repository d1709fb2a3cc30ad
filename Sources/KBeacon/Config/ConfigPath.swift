import JSON

/// A flat key-path view of a configuration, for diffing: `name`, `advObj[0].txPwr`, `trObj[1].trType`,
/// `srObj[2].lgItvl`. The number in brackets is the entry's identity (slot index, `trIdx` — `trType` for
/// v1 —, `srType`), not its array position, so two reads compare entry by entry.
public struct ConfigPath: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// nil for a root key, else `advObj`, `trObj` or `srObj`.
  public var array: String?
  public var identity: Int?
  public var key: String

  public init(array: String? = nil, identity: Int? = nil, key: String) {
    self.array = array
    self.identity = identity
    self.key = key
  }

  /// Parses `key` or `array[identity].key`.
  public init?(_ text: String) {
    guard let open = text.firstIndex(of: "[") else {
      guard !text.isEmpty, !text.contains("."), !text.contains("]") else { return nil }
      self.init(key: text)
      return
    }
    let array = String(text[..<open])
    guard KBeaconConfiguration.arrayKeys.contains(array), let close = text[open...].firstIndex(of: "]"),
      let identity = Int(text[text.index(after: open)..<close])
    else { return nil }
    let rest = text[text.index(after: close)...]
    guard rest.hasPrefix("."), rest.count > 1 else { return nil }
    self.init(array: array, identity: identity, key: String(rest.dropFirst()))
  }

  public var description: String { array.map { "\($0)[\(identity ?? -1)].\(key)" } ?? key }

  public static func < (a: Self, b: Self) -> Bool { a.description < b.description }
}

extension KBeaconConfiguration {
  /// Every value with its path, root keys first, then slots, triggers and sensors in array order.
  public func flattened() -> [(path: String, value: JSONValue)] {
    var out: [(String, JSONValue)] = common.fields.map { ($0.key, $0.value) }
    func add(_ array: String, _ fields: JSONObject, _ identity: Int?) {
      guard let identity else { return }
      for (key, value) in fields {
        out.append((ConfigPath(array: array, identity: identity, key: key).description, value))
      }
    }
    for s in slots { add("advObj", s.fields, s.identity) }
    for t in triggers { add("trObj", t.fields, t.identityValue(generation)) }
    for s in sensors { add("srObj", s.fields, s.identity) }
    return out
  }

  /// A configuration from path/value pairs (the inverse of `flattened()`). Each entry gets its identity
  /// key first, so a partial set of paths becomes a valid `cfg` fragment. Unparseable paths are errors.
  public init(flattened pairs: [(path: String, value: JSONValue)], generation: ProtocolGeneration) throws(KBeaconError)
  {
    self.init(generation: generation)
    for (text, value) in pairs {
      guard let path = ConfigPath(text) else { throw .inputInvalid("'\(text)' is not a configuration path") }
      guard let array = path.array, let id = path.identity else {
        common.fields[path.key] = value
        continue
      }
      switch array {
      case "advObj": Self.set(&slots, "slot", id, path.key, value)
      case "trObj": Self.set(&triggers, generation == .pro ? "trIdx" : "trType", id, path.key, value)
      default: Self.set(&sensors, "srType", id, path.key, value)
      }
    }
  }

  static func set<E: ConfigEntry>(_ entries: inout [E], _ idKey: String, _ id: Int, _ key: String, _ value: JSONValue) {
    if let i = entries.firstIndex(where: { $0.fields[idKey]?.intValue == id }) {
      entries[i].fields[key] = value
    } else {
      var fields: JSONObject = [idKey: .int(id)]
      fields[key] = value
      entries.append(E(fields: fields))
    }
  }
}
