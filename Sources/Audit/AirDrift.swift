import BeaconCore
import Profiles

/// Drift visible on the air: what a device advertises, held against the configuration its profile wants
/// (device keys, as `DesiredResolver` makes them), with no connection. Only what an advertisement can show
/// is compared; everything else needs `audit --connect`.
///
/// - **name** (`name`) against the advertised local name, when the device sent a scan response (the name
///   travels there) or advertised a name at all;
/// - per advertising slot (type not `off`, not trigger-only): the frame its type sends must be heard —
///   iBeacon `uuid`/`majorID`/`minorID`, Eddystone-UID `nid`/`sid`, Eddystone-URL `url` compared field by
///   field; KSensor, TLM and System frames by presence. When several wanted slots send the same kind of
///   frame, a record keeps one frame per kind, so only presence is checked for that kind [I];
/// - **connectable** (`conn`), when every advertising slot wants the same value;
/// - **interval class** (`advPrd`): the mean gap between advertising reports against the period the slots
///   add up to (1 / Σ 1/advPrd). Missed reports only make gaps longer, so only a device advertising at
///   least `slowFactor` times slower than wanted is drift, and only from `minimumReports` reports [I: 4×, 4].
public struct AirDrift: Sendable {
  public var slowFactor: Double = 4
  public var minimumReports = 4

  public init() {}

  public func drift(desired: DeviceConfigView, heard record: DeviceRecord) -> [AuditDrift] {
    var drift: [AuditDrift] = []
    if let name = desired.common["name"]?.textValue, record.name != nil || record.scanResponses > 0, record.name != name
    {
      drift.append(AuditDrift(scope: "device", key: "name", expected: name, actual: record.name, source: .air))
    }
    let slots = desired.slots.sorted { $0.key < $1.key }.filter { Self.advertises($0.value) }
    let kinds = slots.compactMap { Self.frameKind(of: $0.value) }
    for (index, slot) in slots {
      guard let kind = Self.frameKind(of: slot) else { continue }
      let scope = "slot \(index)"
      guard let frame = record.frame(kind), !frame.isMalformed else {
        drift.append(AuditDrift(scope: scope, key: kind.rawValue, expected: "advertised", actual: nil, source: .air))
        continue
      }
      if kinds.filter({ $0 == kind }).count == 1 { drift += Self.fields(slot, frame, scope: scope) }
    }
    let wantConnectable = Set(slots.compactMap { $0.value["conn"]?.intValue.map { $0 != 0 } })
    if wantConnectable.count == 1, let want = wantConnectable.first, slots.allSatisfy({ $0.value["conn"] != nil }),
      let heard = record.connectable, heard != want
    {
      drift.append(
        AuditDrift(scope: "device", key: "connectable", expected: String(want), actual: String(heard), source: .air))
    }
    if let interval = intervalDrift(slots.map(\.value), record) { drift.append(interval) }
    return drift
  }

  /// A slot that sends frames on its own: its type is not off and it is not trigger-only.
  static func advertises(_ slot: [String: SettingValue]) -> Bool {
    slot["type"]?.intValue != 0 && slot["trAdv"]?.intValue != 1
  }

  /// The frame a slot type (`ProfileFields.slotTypes`) sends.
  static func frameKind(of slot: [String: SettingValue]) -> FrameKind? {
    switch slot["type"]?.intValue {
    case 1: .kSensor
    case 2: .eddystoneUID
    case 3: .eddystoneTLM
    case 4: .eddystoneURL
    case 5: .iBeacon
    case 6: .kkmSystem
    default: nil
    }
  }

  static func fields(_ slot: [String: SettingValue], _ frame: BeaconFrame, scope: String) -> [AuditDrift] {
    var heard: [(key: String, field: String, value: String)] = []
    switch frame {
    case .iBeacon(let f):
      heard = [
        ("uuid", "iBeacon.uuid", f.uuid.description), ("majorID", "iBeacon.major", String(f.major)),
        ("minorID", "iBeacon.minor", String(f.minor)),
      ]
    case .eddystoneUID(let f):
      heard = [
        ("nid", "eddystoneUID.namespace", "0x" + f.namespace.description),
        ("sid", "eddystoneUID.instance", "0x" + f.instance.description),
      ]
    case .eddystoneURL(let f):
      heard = [("url", "eddystoneURL.url", f.url)]
    default:
      return []
    }
    return heard.compactMap { key, field, value in
      guard let want = slot[key] else { return nil }
      let expected = want.textValue ?? want.description
      return expected.lowercased() == value.lowercased() && (key != "url" || expected == value)
        ? nil : AuditDrift(scope: scope, key: field, expected: expected, actual: value, source: .air)
    }
  }

  /// The interval class check; nil when it cannot tell or there is no drift.
  func intervalDrift(_ slots: [[String: SettingValue]], _ record: DeviceRecord) -> AuditDrift? {
    let periods = slots.compactMap { $0["advPrd"]?.numericValue }
    guard !periods.isEmpty, periods.count == slots.count, periods.allSatisfy({ $0 > 0 }),
      record.advertisingReports >= minimumReports
    else { return nil }
    let wanted = 1 / periods.map { 1 / $0 }.reduce(0, +)
    let heard = (record.lastSeen - record.firstSeen) * 1000 / Double(record.advertisingReports - 1)
    guard heard >= wanted * slowFactor else { return nil }
    return AuditDrift(
      scope: "device", key: "advertising interval", expected: "≈ \(Int(wanted.rounded())) ms",
      actual: "≈ \(Int(heard.rounded())) ms", source: .air)
  }
}
