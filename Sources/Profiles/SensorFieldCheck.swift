import JSON
import KBeacon

/// A sensor entry's fields against its sensor type (docs/protocols/kbeacon.md §6.6): the device's key table
/// (`KeyTable`) gives each sensor type its own keys and ranges — `msItvl` is 1…200 s for
/// temperature-humidity but 10…3600 s for CO2, `luxThd` exists only for light — while a profile's
/// `ProfileFields.sensor` row can only give the widest range. So a decoded sensor entry is checked once
/// more with its type known: a field the type does not have, or a value outside the type's range, is a
/// profile error at its JSON path, before any device is touched. (A templated value gets only the
/// profile-wide check, when it resolves for a device.)
enum SensorFieldCheck {
  struct Problem: Equatable {
    var field: DesiredField
    var message: String
    var allowed: String
  }

  static func problems(_ entry: DesiredObject, sensorType: Int, sensorName: String) -> [Problem] {
    var problems: [Problem] = []
    let applicable = ProfileFields.sensor.filter { spec in
      spec.key == "type" || spec.deviceKey.map { KeyTable.spec(for: $0, in: .sensor, type: sensorType) != nil } ?? true
    }
    for field in entry.fields where field.spec.key != "type" {
      guard let key = field.spec.deviceKey else { continue }
      guard let row = KeyTable.spec(for: key, in: .sensor, type: sensorType) else {
        problems.append(
          Problem(
            field: field, message: "\"\(field.spec.key)\" does not apply to sensor \(sensorName)",
            allowed: applicable.map(\.key).joined(separator: ", ")))
        continue
      }
      let scale: Double
      if case .number(_, let s) = field.spec.kind { scale = s } else { scale = 1 }
      let device: JSONValue
      switch field.value {
      case .integer(let i): device = scale == 1 ? .int(i) : .double(Double(i) * scale)
      case .number(let d): device = .double(d * scale)
      case .boolean(let b): device = .int(b ? 1 : 0)
      case .text, .names, .template: continue
      }
      guard row.kind.problem(with: device) != nil else { continue }
      problems.append(
        Problem(
          field: field, message: "\(field.value) is out of range for sensor \(sensorName)",
          allowed: allowed(row.kind, scale: scale)))
    }
    return problems
  }

  /// The type's range in profile units.
  static func allowed(_ kind: ConfigValueKind, scale: Double) -> String {
    switch kind {
    case .integer(let r):
      "\(FieldSpec.Kind.plain(Double(r.lowerBound) / scale))…\(FieldSpec.Kind.plain(Double(r.upperBound) / scale))"
    case .number(let r): "\(FieldSpec.Kind.plain(r.lowerBound / scale))…\(FieldSpec.Kind.plain(r.upperBound / scale))"
    case .flag: "true, false"
    default: "\(kind)"
    }
  }
}
