import BeaconCore
import Fleet
import KBeacon
import Profiles

/// The fleet campaign's view of a KBeacon (`Fleet.ConfigurationSession` / `SessionOpener`) over
/// `KBeaconSession`: reads convert the device JSON to `DeviceConfigView`, writes turn a patch into one
/// `cfg` message holding exactly its keys (kbeacon-protocol.md §6.2). Wire it into `ApplyCampaign` in the
/// composition root.
struct KBeaconSessionOpener: SessionOpener {
  var adapter: AdapterChoice?
  var timeouts = KBeaconSession.Timeouts()

  func open(_ target: Target, password: Secret) async throws -> any ConfigurationSession {
    let secret = try KBeaconPassword(password.value)
    let connector = KBeaconConnector(adapter: adapter, password: secret, timeouts: timeouts)
    let (session, _) = try await connector.connect(target.address, type: target.addressType, sections: .all)
    return KBeaconConfigurationSession(session: session)
  }
}

struct KBeaconConfigurationSession: ConfigurationSession {
  let session: KBeaconSession

  func readConfiguration() async throws -> DeviceConfigView {
    DeviceConfigView(try await session.readConfiguration(sections: .all))
  }

  /// Every slot entry of a `cfg` carries `type` (§6.2): a patch that changes a slot without naming its
  /// type gets the type the device last reported.
  func write(_ patch: DeviceConfigView) async throws {
    var changes = KBeaconConfiguration(patch)
    let known = await session.configuration
    for i in changes.slots.indices where changes.slots[i].fields["type"] == nil {
      if let index = changes.slots[i].index, let type = known?.slot(index)?.fields["type"] {
        var fields: JSONObject = ["slot": .int(index), "type": type]
        for (k, v) in changes.slots[i].fields where k != "slot" { fields[k] = v }
        changes.slots[i].fields = fields
      }
    }
    try await session.write(changes)
  }

  func close() async { await session.close() }
}

extension DeviceConfigView {
  /// The scalar keys of a device configuration (arrays/objects inside entries have no place in the view).
  init(_ config: KBeaconConfiguration) {
    func scalars(_ object: JSONObject) -> [String: Profiles.ConfigValue] {
      var out: [String: Profiles.ConfigValue] = [:]
      for (key, value) in object {
        switch value {
        case .number(let n): out[key] = Int(n.text).map { .integer($0) } ?? .number(n.doubleValue)
        case .string(let s): out[key] = .text(s)
        case .bool(let b): out[key] = .integer(b ? 1 : 0)
        default: break
        }
      }
      return out
    }
    func keyed<E: ConfigEntry>(_ entries: [E], _ id: (E) -> Int?) -> [Int: [String: Profiles.ConfigValue]] {
      var out: [Int: [String: Profiles.ConfigValue]] = [:]
      for e in entries { if let i = id(e) { out[i] = scalars(e.fields) } }
      return out
    }
    self.init(
      common: scalars(config.common.fields), slots: keyed(config.slots) { $0.identity },
      triggers: keyed(config.triggers) { $0.fields[config.generation == .pro ? "trIdx" : "trType"]?.intValue },
      sensors: keyed(config.sensors) { $0.identity })
  }
}

extension KBeaconConfiguration {
  /// A patch as a `cfg` body: identity keys first, the rest sorted by name (a stable message).
  init(_ view: DeviceConfigView) {
    func json(_ value: Profiles.ConfigValue) -> JSONValue {
      switch value {
      case .integer(let i): .int(i)
      case .number(let d): .double(d)
      case .text(let s): .string(s)
      }
    }
    func object(_ idKey: String?, _ id: Int?, _ fields: [String: Profiles.ConfigValue]) -> JSONObject {
      var o = JSONObject()
      if let idKey, let id { o[idKey] = .int(id) }
      for key in fields.keys.sorted() where key != idKey { o[key] = json(fields[key]!) }
      return o
    }
    self.init(
      generation: .pro, common: CommonConfig(fields: object(nil, nil, view.common)),
      slots: view.slots.keys.sorted().map { SlotConfig(fields: object("slot", $0, view.slots[$0]!)) },
      triggers: view.triggers.keys.sorted().map { TriggerConfig(fields: object("trIdx", $0, view.triggers[$0]!)) },
      sensors: view.sensors.keys.sorted().map { SensorConfig(fields: object("srType", $0, view.sensors[$0]!)) })
  }
}

extension KBeaconAuthenticationError: ClassifiedFailure {
  /// A wrong password is never retried (devices may lock out); other auth trouble is permanent.
  public var failureKind: FailureKind { self == .wrongPassword ? .wrongPassword : .permanent }
}

extension KBeaconError: ClassifiedFailure {
  /// Busy, timeouts and broken frames are worth another attempt; a device refusing a value is not.
  public var failureKind: FailureKind {
    switch self {
    case .busy, .timeout, .malformedFrame, .stateError: .transient
    default: .permanent
    }
  }
}
