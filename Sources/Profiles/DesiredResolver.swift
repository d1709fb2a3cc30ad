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

  /// The device's configuration, or the first field that could not be filled in or checked.
  public func resolve(_ desired: DesiredState, _ variables: TemplateVariables) -> Result<DeviceConfigView, Failure> {
    var failures: [Failure] = []
    let view = view(desired, variables, &failures)
    if let first = failures.first { return .failure(first) }
    return .success(view)
  }

  /// Every field that could not be filled in or checked for this device, in the profile's order: `resolve`
  /// stops at the first, the preflight of `profile check` and of a campaign reports them all at once.
  public func failures(_ desired: DesiredState, _ variables: TemplateVariables) -> [Failure] {
    var failures: [Failure] = []
    _ = view(desired, variables, &failures)
    return failures
  }

  private func view(_ desired: DesiredState, _ variables: TemplateVariables, _ failures: inout [Failure])
    -> DeviceConfigView
  {
    var view = DeviceConfigView()
    // In order (slot 0 before slot 1…): the failures are listed as the profile reads, the same every run.
    view.common = keys(desired.common, variables, &failures)
    for (index, slot) in desired.slots.sorted(by: { $0.key < $1.key }) {
      view.slots[index] = keys(slot, variables, &failures)
    }
    for (index, trigger) in desired.triggers.sorted(by: { $0.key < $1.key }) {
      view.triggers[index] = keys(trigger, variables, &failures)
    }
    for (type, sensor) in desired.sensors.sorted(by: { $0.key < $1.key }) {
      view.sensors[type] = keys(sensor, variables, &failures)
    }
    return view
  }

  /// `object`'s device keys; a field that cannot be filled in or checked is added to `failures` and left out.
  func keys(_ object: DesiredObject, _ variables: TemplateVariables, _ failures: inout [Failure])
    -> [String: SettingValue]
  {
    var result: [String: SettingValue] = [:]
    for field in object.fields {
      var value = field.value
      if case .template(let text) = value {
        switch templates.template(text).render(variables) {
        case .failure(let e):
          failures.append(Failure(path: field.path, message: e.message))
          continue
        case .success(let rendered):
          switch FieldCheck.resolve(rendered, field.spec, urlCheck: urlCheck) {
          case .failure(let f):
            failures.append(Failure(path: field.path, message: f.message, allowed: f.allowed))
            continue
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
