import JSON
import KBeacon

/// A value as written in the profile, before per-device templating.
public enum FieldValue: Sendable, Hashable, CustomStringConvertible {
  case integer(Int)
  case number(Double)
  case boolean(Bool)
  case text(String)
  case names([String])
  /// A string holding `{{…}}`; resolved per device by `Template`, then checked like a literal.
  case template(String)

  public var description: String {
    switch self {
    case .integer(let i): String(i)
    case .number(let d): FieldSpec.Kind.plain(d)
    case .boolean(let b): String(b)
    case .text(let s), .template(let s): "\"\(s)\""
    case .names(let n): "[" + n.joined(separator: ", ") + "]"
    }
  }
}

/// One field of `desired`, with where it was written so per-device errors can point at it.
public struct DesiredField: Sendable, Hashable {
  public var spec: FieldSpec
  public var value: FieldValue
  public var path: JSONPath
  public var position: SourcePosition?

  public init(spec: FieldSpec, value: FieldValue, path: JSONPath, position: SourcePosition?) {
    self.spec = spec
    self.value = value
    self.path = path
    self.position = position
  }
}

/// One object of `desired` (the root's common settings, one slot, one trigger or one sensor): its fields
/// in the order written.
public struct DesiredObject: Sendable, Hashable {
  public var fields: [DesiredField]
  public var path: JSONPath

  public init(fields: [DesiredField] = [], path: JSONPath) {
    self.fields = fields
    self.path = path
  }

  public subscript(key: String) -> DesiredField? { fields.first { $0.spec.key == key } }

  /// The value of a non-templated integer or choice field (slot index, trigger index, types).
  func literalName(_ key: String) -> String? {
    if case .text(let s)? = self[key]?.value { return s }
    return nil
  }

  func literalInteger(_ key: String) -> Int? {
    if case .integer(let i)? = self[key]?.value { return i }
    return nil
  }
}

/// `desired`: what every selected device should be. Only the keys written are managed; everything else on
/// the device is left as it is.
public struct DesiredState: Sendable, Hashable {
  public var common: DesiredObject
  /// Keyed by slot index.
  public var slots: [Int: DesiredObject]
  /// Keyed by trigger index.
  public var triggers: [Int: DesiredObject]
  /// Keyed by sensor type number.
  public var sensors: [Int: DesiredObject]

  public init(
    common: DesiredObject = DesiredObject(path: JSONPath.root.appending("desired")), slots: [Int: DesiredObject] = [:],
    triggers: [Int: DesiredObject] = [:], sensors: [Int: DesiredObject] = [:]
  ) {
    self.common = common
    self.slots = slots
    self.triggers = triggers
    self.sensors = sensors
  }

  /// Every object, common first, then slots, triggers and sensors in index order.
  public var allObjects: [DesiredObject] {
    [common] + slots.sorted { $0.key < $1.key }.map(\.value) + triggers.sorted { $0.key < $1.key }.map(\.value)
      + sensors.sorted { $0.key < $1.key }.map(\.value)
  }
}
