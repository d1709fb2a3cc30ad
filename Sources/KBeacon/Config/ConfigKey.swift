import JSON

/// A value that maps to and from device JSON.
public protocol DeviceJSONConvertible: Sendable, Equatable {
  init?(json: JSONValue)
  var json: JSONValue { get }
}

extension Int: DeviceJSONConvertible {
  public init?(json: JSONValue) {
    guard let i = json.intValue else { return nil }
    self = i
  }
  public var json: JSONValue { .int(self) }
}

/// A number beyond `Double` (`1e400` from a faulty device or a damaged state file) reads as no value:
/// its ±infinity could not be written back (`JSONNumber(Double)` refuses non-finite values, which once crashed `plan`),
/// and no key of docs/protocols/kbeacon.md §6 allows it.
extension Double: DeviceJSONConvertible {
  public init?(json: JSONValue) {
    guard let d = json.doubleValue, d.isFinite else { return nil }
    self = d
  }
  public var json: JSONValue { .double(self) }
}

extension String: DeviceJSONConvertible {
  public init?(json: JSONValue) {
    guard let s = json.stringValue else { return nil }
    self = s
  }
  public var json: JSONValue { .string(self) }
}

/// 0/1 flags (`conn`, `trAdv`, `atPwr`, …). Reads accept 0/1 and `true`/`false`; writes send 0/1 as the
/// SDKs do.
extension Bool: DeviceJSONConvertible {
  public init?(json: JSONValue) {
    switch json {
    case .bool(let b): self = b
    case .number where json.intValue == 0: self = false
    case .number where json.intValue == 1: self = true
    default: return nil
    }
  }
  public var json: JSONValue { .int(self ? 1 : 0) }
}

extension DeviceJSONConvertible where Self: RawRepresentable, RawValue == Int {
  public init?(json: JSONValue) {
    guard let i = json.intValue, let v = Self(rawValue: i) else { return nil }
    self = v
  }
  public var json: JSONValue { .int(rawValue) }
}

extension AdvType: DeviceJSONConvertible {}
extension TriggerType: DeviceJSONConvertible {}
extension SensorType: DeviceJSONConvertible {}
extension AdvMode: DeviceJSONConvertible {}
extension TriggerAction: DeviceJSONConvertible {}
extension BasicCapability: DeviceJSONConvertible {}

/// A typed name for one JSON key. The allowed values live in `KeyTable` (look them up with `spec`).
public struct ConfigKey<Value: DeviceJSONConvertible>: Hashable, Sendable, CustomStringConvertible {
  public let name: String
  public let scope: ConfigScope
  public init(_ name: String, _ scope: ConfigScope) {
    self.name = name
    self.scope = scope
  }

  /// The table row for this key in an entry of the given type.
  public func spec(type: Int? = nil) -> ConfigKeySpec? { KeyTable.spec(for: name, in: scope, type: type) }

  public var description: String { name }
}

/// An object of device JSON (root, `advObj` / `trObj` / `srObj` entry) with typed access by `ConfigKey`.
/// Keys the model does not know stay in `fields` untouched, in their order.
public protocol ConfigEntry: Sendable, Hashable {
  var fields: JSONObject { get set }
  static var scope: ConfigScope { get }
  /// The key that identifies an entry in its array (`slot`, `trIdx`, `srType`), nil for the root.
  static var identityKey: String? { get }
  init(fields: JSONObject)
}

extension ConfigEntry {
  public subscript<Value>(key: ConfigKey<Value>) -> Value? {
    get { fields[key.name].flatMap(Value.init(json:)) }
    set { fields[key.name] = newValue?.json }
  }

  /// The value of the identity key.
  public var identity: Int? { Self.identityKey.flatMap { fields[$0]?.intValue } }

  /// Every field that breaks its row in `KeyTable` (unknown keys are not problems: they are kept).
  public func problems(entryType: Int? = nil) -> [String] {
    fields.compactMap { entry in
      KeyTable.spec(for: entry.key, in: Self.scope, type: entryType)?.problem(with: entry.value)
    }
  }
}
