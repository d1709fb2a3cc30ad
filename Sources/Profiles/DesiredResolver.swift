import JSON
import Synchronization

/// Turns `desired` into one device's wanted configuration: templates filled in from its variables, every
/// value checked again, and converted to device keys and units (booleans → 0/1, choices → numbers, flags →
/// bitmasks, scaled numbers → integers, KSensor switches → one 0/1 key each, UUIDs upper-case).
public struct DesiredResolver: Sendable {
  public var urlCheck: FieldCheck.URLCheck
  /// Each template text parsed once for all the devices this resolver fills it in for.
  private let templates = TemplateCache()

  public init(urlCheck: @escaping FieldCheck.URLCheck) { self.urlCheck = urlCheck }

  /// A field that could not be filled in or checked for this device.
  public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: JSONPath
    public var message: String
    public var allowed: String?
    public var description: String { "\(path): \(message)" + (allowed.map { " (allowed: \($0))" } ?? "") }
  }

  public func resolve(_ desired: DesiredState, _ variables: TemplateVariables) -> Result<DeviceConfigView, Failure> {
    var view = DeviceConfigView()
    do {
      view.common = try keys(desired.common, variables)
      for (index, slot) in desired.slots { view.slots[index] = try keys(slot, variables) }
      for (index, trigger) in desired.triggers { view.triggers[index] = try keys(trigger, variables) }
      for (type, sensor) in desired.sensors { view.sensors[type] = try keys(sensor, variables) }
    } catch {
      return .failure(error)
    }
    return .success(view)
  }

  func keys(_ object: DesiredObject, _ variables: TemplateVariables) throws(Failure) -> [String: SettingValue] {
    var result: [String: SettingValue] = [:]
    for field in object.fields {
      var value = field.value
      if case .template(let text) = value {
        switch templates.template(text).render(variables) {
        case .failure(let e): throw Failure(path: field.path, message: e.message)
        case .success(let rendered):
          switch FieldCheck.resolve(rendered, field.spec, urlCheck: urlCheck) {
          case .failure(let f): throw Failure(path: field.path, message: f.message, allowed: f.allowed)
          case .success(let v): value = v
          }
        }
      }
      for (key, v) in Self.deviceValues(field.spec, value) { result[key] = v }
    }
    return result
  }

  /// The device key(s) and value(s) a checked profile value becomes.
  static func deviceValues(_ spec: FieldSpec, _ value: FieldValue) -> [(String, SettingValue)] {
    switch (spec.kind, value) {
    case (.switches(let all), .names(let on)):
      return all.map { ($0.1, .integer(on.contains($0.0) ? 1 : 0)) }
    default:
      guard let key = spec.deviceKey, let v = deviceValue(spec, value) else { return [] }
      return [(key, v)]
    }
  }

  static func deviceValue(_ spec: FieldSpec, _ value: FieldValue) -> SettingValue? {
    switch (spec.kind, value) {
    case (.integer, .integer(let i)): return .integer(i)
    case (.number(_, let scale), .integer(let i)):
      return scale == 1 ? .number(Double(i)) : .integer(Int((Double(i) * scale).rounded()))
    case (.number(_, let scale), .number(let d)): return scale == 1 ? .number(d) : .integer(Int((d * scale).rounded()))
    case (.boolean, .boolean(let b)): return .integer(b ? 1 : 0)
    case (.choice(let names), .text(let s)): return names.first { $0.0 == s }.map { .integer($0.1) }
    case (.flags(let names), .names(let list)):
      return .integer(names.filter { list.contains($0.0) }.reduce(0) { $0 | $1.1 })
    case (.text(_, let format), .text(let s)): return .text(canonical(s, format))
    default: return nil
    }
  }

  /// The spelling a device uses: UUIDs upper-case; Eddystone ids `0x` + lower-case hex (docs/protocols/kbeacon.md §6.4).
  static func canonical(_ s: String, _ format: FieldSpec.TextFormat) -> String {
    switch format {
    case .uuid: s.uppercased()
    case .hex: "0x" + (s.hasPrefix("0x") || s.hasPrefix("0X") ? String(s.dropFirst(2)) : s).lowercased()
    default: s
    }
  }
}

/// Parsed templates by text, shared by the copies of one `DesiredResolver`.
final class TemplateCache: Sendable {
  private let parsed = Mutex<[String: Template]>([:])

  func template(_ text: String) -> Template {
    if let known = parsed.withLock({ $0[text] }) { return known }
    let template = Template(text)
    parsed.withLock { $0[text] = template }
    return template
  }
}
