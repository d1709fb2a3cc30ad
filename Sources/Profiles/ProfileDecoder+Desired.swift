import BeaconCore
import JSON
import KBeacon

/// Decoding of `desired`: common keys, `slots`, `triggers`, `sensors`, each field checked against its
/// `FieldSpec` (`ProfileFields`), with the cross-field rules of docs/protocols/kbeacon.md §6.2 (a slot carries
/// only its type's keys; a trigger that advertises names its slot; indices are unique).
extension ProfileDecoder {
  mutating func desired(_ json: SourceJSON, _ path: JSONPath) -> DesiredState {
    var state = DesiredState(common: DesiredObject(path: path))
    guard let m = members(json, path, known: ProfileKeys.desired) else { return state }
    state.common = object(m, ProfileFields.common, path)
    for (i, slot) in array(m["slots"], path.appending("slots")) {
      let p = path.appending("slots").appending(i)
      guard case .object = slot.kind else {
        report(slot, p, "expected an object, found \(slot.typeName)")
        continue
      }
      let typeName: String? = if case .string(let t)? = slot["type"]?.kind { t } else { nil }
      let extra = typeName.flatMap { ProfileFields.slotByType[$0] } ?? []
      let specs = ProfileFields.slotBase + extra
      if slot["type"] == nil {
        report(slot, p, "missing \"type\"", allowed: ProfileFields.slotTypes.map(\.0).joined(separator: ", "))
      }
      if slot["slot"] == nil { report(slot, p, "missing \"slot\"", allowed: "0…4") }
      guard let fields = members(slot, p, known: specs.map(\.key), hint: typeName.map { "\($0) slots" }) else {
        continue
      }
      let o = object(fields, specs, p)
      if let index = o.literalInteger("slot") {
        if state.slots[index] != nil { report(slot["slot"], p.appending("slot"), "slot \(index) is configured twice") }
        state.slots[index] = o
      }
    }
    for (i, trigger) in array(m["triggers"], path.appending("triggers")) {
      let p = path.appending("triggers").appending(i)
      guard let fields = members(trigger, p, known: ProfileFields.trigger.map(\.key)) else { continue }
      let o = object(fields, ProfileFields.trigger, p)
      for required in ["index", "type"] where fields[required] == nil { report(trigger, p, "missing \"\(required)\"") }
      if case .names(let actions)? = o["actions"]?.value, actions.contains("advertise"), o["slot"] == nil {
        report(fields["actions"], p.appending("actions"), "a trigger with the advertise action must name its \"slot\"")
      }
      if let index = o.literalInteger("index") {
        if state.triggers[index] != nil {
          report(fields["index"], p.appending("index"), "trigger \(index) is configured twice")
        }
        state.triggers[index] = o
      }
    }
    for (i, sensor) in array(m["sensors"], path.appending("sensors")) {
      let p = path.appending("sensors").appending(i)
      guard let fields = members(sensor, p, known: ProfileFields.sensor.map(\.key)) else { continue }
      let o = object(fields, ProfileFields.sensor, p)
      guard let name = o.literalName("type"), let type = ProfileFields.sensorTypes.first(where: { $0.0 == name })?.1
      else {
        if fields["type"] == nil {
          report(sensor, p, "missing \"type\"", allowed: ProfileFields.sensorTypes.map(\.0).joined(separator: ", "))
        }
        continue
      }
      if state.sensors[type] != nil {
        report(fields["type"], p.appending("type"), "sensor \(name) is configured twice")
      }
      for problem in SensorFieldCheck.problems(o, sensorType: type, sensorName: name) {
        report(fields[problem.field.spec.key], problem.field.path, problem.message, allowed: problem.allowed)
      }
      state.sensors[type] = o
    }
    return state
  }

  mutating func array(_ json: SourceJSON?, _ path: JSONPath) -> [(Int, SourceJSON)] {
    guard let json else { return [] }
    guard case .array(let items) = json.kind else {
      report(json, path, "expected an array, found \(json.typeName)")
      return []
    }
    return Array(items.enumerated())
  }

  /// `members(_:_:known:)` with a hint naming the object kind in the unknown-key message.
  mutating func members(_ json: SourceJSON, _ path: JSONPath, known: [String], hint: String?) -> [String: SourceJSON]? {
    let before = diagnostics.count
    let result = members(json, path, known: known)
    if let hint {
      for i in before..<diagnostics.count where diagnostics[i].message.hasPrefix("unknown key") {
        diagnostics[i].message += " (not a key of \(hint))"
      }
    }
    return result
  }

  /// The fields of one object that pass their checks; failures are reported.
  mutating func object(_ m: [String: SourceJSON], _ specs: [FieldSpec], _ path: JSONPath) -> DesiredObject {
    var o = DesiredObject(path: path)
    for spec in specs {
      guard let json = m[spec.key] else { continue }
      let p = path.appending(spec.key)
      guard let value = literal(json, spec, p) else { continue }
      if let failure = FieldCheck.check(value, spec, urlCheck: urlCheck) {
        report(json, p, failure.message, allowed: failure.allowed)
        continue
      }
      o.fields.append(DesiredField(spec: spec, value: value, path: p, position: json.position))
    }
    return o
  }

  /// The JSON value as a `FieldValue` of the shape the kind wants (templates kept as such).
  mutating func literal(_ json: SourceJSON, _ spec: FieldSpec, _ path: JSONPath) -> FieldValue? {
    switch json.kind {
    case .string(let s) where s.contains("{{"):
      guard spec.templatable else {
        report(json, path, "templates are not allowed in \"\(spec.key)\"", allowed: spec.kind.allowed)
        return nil
      }
      if let problem = Template(s).syntaxError {
        report(json, path, problem)
        return nil
      }
      return .template(s)
    case .number(let d, let text):
      // A number beyond Double (`-1e400`, parsed as ±∞) or, in an integer field, beyond Int is out of
      // range, named as the file wrote it.
      guard d.isFinite else {
        report(json, path, "\(text.echoed) is out of range", allowed: spec.kind.allowed)
        return nil
      }
      if case .integer = spec.kind {
        guard d.rounded() == d else {
          report(json, path, "expected an integer, found \(text.echoed)", allowed: spec.kind.allowed)
          return nil
        }
        guard let i = Int(exactly: d) else {
          report(json, path, "\(text.echoed) is out of range", allowed: spec.kind.allowed)
          return nil
        }
        return .integer(i)
      }
      return .number(d)
    case .bool(let b): return .boolean(b)
    case .string(let s): return .text(s)
    case .array(let items):
      var names: [String] = []
      for (i, item) in items.enumerated() {
        guard case .string(let s) = item.kind else {
          report(
            item, path.appending(i), "expected a name (string), found \(item.typeName)", allowed: spec.kind.allowed)
          return nil
        }
        names.append(s)
      }
      return .names(names)
    case .object, .null:
      report(
        json, path, "expected \(FieldCheck.expectedType(spec.kind)), found \(json.typeName)", allowed: spec.kind.allowed
      )
      return nil
    }
  }
}
