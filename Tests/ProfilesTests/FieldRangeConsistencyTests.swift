import JSON
import KBeacon
import Testing

@testable import Profiles

/// `ProfileFields` (what a profile may ask for) and KBeacon's `KeyTable` (what the device accepts) are two
/// tables over the same keys; every value a profile accepts must be one the device's key table accepts too,
/// or `apply` would send a value the device refuses. Checked at the edges of each profile range, for every
/// choice, and for booleans; sensor fields, whose ranges depend on the sensor type, have `SensorFieldCheck`.
@Suite(.timeLimit(.minutes(1))) struct FieldRangeConsistencyTests {
  /// Every profile field with a device key, its scope in the key table and the entry type it belongs to.
  static var fields: [(FieldSpec, ConfigScope, Int?)] {
    var all: [(FieldSpec, ConfigScope, Int?)] = []
    all += ProfileFields.common.map { ($0, .common, nil) }
    all += ProfileFields.slotBase.map { ($0, .slot, nil) }
    for (name, specs) in ProfileFields.slotByType {
      let type = ProfileFields.slotTypes.first { $0.0 == name }?.1
      all += specs.map { ($0, .slot, type) }
    }
    all += ProfileFields.trigger.map { ($0, .trigger, nil) }
    all += ProfileFields.sensor.map { ($0, .sensor, nil) }
    return all.filter { $0.0.deviceKey != nil }
  }

  /// The device-side values a profile field allows at its edges.
  static func edgeValues(_ kind: FieldSpec.Kind) -> [JSONValue] {
    switch kind {
    case .integer(let r): [.int(r.lowerBound), .int(r.upperBound)]
    case .number(let r, let scale): [r.lowerBound * scale, r.upperBound * scale].map { .number(JSONNumber($0)) }
    case .boolean: [.int(0), .int(1)]
    case .choice(let options): options.map { .int($0.1) }
    case .flags(let options): [.int(options.reduce(0) { $0 | $1.1 })]
    case .text(let maxLength, .plain): [.string(String(repeating: "a", count: maxLength))]
    case .text, .switches: []
    }
  }

  @Test func everyValueAProfileAllowsTheDeviceKeyTableAllows() {
    var checked = 0
    for (field, scope, type) in Self.fields {
      guard let key = field.deviceKey else { continue }
      // Sensor keys belong to the sensor types that have them (`srType`): any of those rows will do.
      let row =
        scope == .sensor
        ? ProfileFields.sensorTypes.lazy.compactMap { KeyTable.spec(for: key, in: scope, type: $0.1) }.first
        : KeyTable.spec(for: key, in: scope, type: type)
      #expect(row != nil, "\(scope).\(key) (profile \(field.key)) is not in the key table")
      guard let row else { continue }
      #expect(row.isWritable, "\(scope).\(key) is read-only in the key table")
      // Sensor fields are checked against their own sensor type's row when a profile is decoded
      // (SensorFieldCheck), so only their presence is checked here.
      guard scope != .sensor else { continue }
      for value in Self.edgeValues(field.kind) {
        #expect(
          row.problem(with: value) == nil,
          "profile \(field.key) allows \(value), the key table says \(row.problem(with: value) ?? "")")
        checked += 1
      }
    }
    #expect(checked > 40, "only \(checked) values checked")
  }
}
