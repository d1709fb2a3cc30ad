/// Advertisement type of a v2 slot, `KBAdvType` (docs/protocols/kbeacon.md §6.4).
public enum AdvType: Int, Sendable, CaseIterable, Codable {
  case disabled = 0
  case kSensor = 1
  case eddystoneUID = 2
  case eddystoneTLM = 3
  case eddystoneURL = 4
  case iBeacon = 5
  case system = 6
  case aoa = 7
  case eBeacon = 8

  /// The bit of the v1 `type` mask that turns this frame on (§7 `KBAdvType`: 0x1 KSensor, 0x2 UID,
  /// 0x4 iBeacon, 0x8 TLM, 0x10 URL); nil for frames v1 does not have.
  public var legacyTypeBit: Int? {
    switch self {
    case .kSensor: 0x1
    case .eddystoneUID: 0x2
    case .iBeacon: 0x4
    case .eddystoneTLM: 0x8
    case .eddystoneURL: 0x10
    case .disabled, .system, .aoa, .eBeacon: nil
    }
  }
}

/// Trigger type, `KBTriggerType` (§6.5); the same numbers tag FEA3 indications (§8.3).
public enum TriggerType: Int, Sendable, CaseIterable, Codable {
  case disabled = 0
  case accMotion = 1
  case accAngle = 2
  case buttonLongPress = 3
  case buttonSingleClick = 4
  case buttonDoubleClick = 5
  case buttonTripleClick = 6
  case cutoff = 7
  case temperatureAbove = 8
  case temperatureBelow = 9
  case humidityAbove = 10
  case humidityBelow = 11
  case humidityPeriodically = 12
  case pirBodyDetected = 13
  case luxAbove = 14
  case luxBelow = 15
  case periodicEvent = 20
  case accPositionReport = 60

  /// `trCap` bit for this type: bit (trType − 1) (§6.3).
  public var capabilityBit: Int { rawValue == 0 ? 0 : 1 << (rawValue - 1) }
}

/// Sensor type, `KBSensorType` (§6.6); also the `srType` of history requests (§9).
public enum SensorType: Int, Sendable, CaseIterable, Codable {
  case disabled = 0
  case accMotion = 0x1
  case humidity = 0x2
  case alarm = 0x8
  case pir = 0x10
  case light = 0x20
  case voc = 0x40
  case co2 = 0x41
  case geo = 0x42
  case scan = 0x44
  case nfc = 0x45
}

/// `trAct` bits (§6.5).
public struct TriggerAction: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let advertise = TriggerAction(rawValue: 0x1)
  public static let alert = TriggerAction(rawValue: 0x2)
  public static let record = TriggerAction(rawValue: 0x4)
  public static let vibrate = TriggerAction(rawValue: 0x8)
  public static let reportToApp = TriggerAction(rawValue: 0x10)
  public static let bleScan = TriggerAction(rawValue: 0x20)
}

/// `bCap` basic capability bits (§6.3).
public struct BasicCapability: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let button = BasicCapability(rawValue: 0x1)
  public static let beep = BasicCapability(rawValue: 0x2)
  public static let accelerometer = BasicCapability(rawValue: 0x4)
  public static let humidity = BasicCapability(rawValue: 0x8)
  public static let alarm = BasicCapability(rawValue: 0x10)
  public static let pir = BasicCapability(rawValue: 0x20)
  public static let light = BasicCapability(rawValue: 0x40)
  public static let voc = BasicCapability(rawValue: 0x80)
  public static let longRange = BasicCapability(rawValue: 0x20000)
  public static let extendedAdvertising = BasicCapability(rawValue: 0x40000)
  public static let securityDFU = BasicCapability(rawValue: 0x80000)
  public static let historyRecord = BasicCapability(rawValue: 0x100000)
  public static let advChannelMask = BasicCapability(rawValue: 0x200000)
  public static let co2 = BasicCapability(rawValue: 0x1000000)
  public static let geo = BasicCapability(rawValue: 0x2000000)
  public static let scan = BasicCapability(rawValue: 0x4000000)
  public static let nfc = BasicCapability(rawValue: 0x8000000)

  /// The adv-type support bit: bit (advType − 1) of `bCap >> 8`.
  public static func advType(_ type: AdvType) -> BasicCapability {
    type == .disabled ? [] : BasicCapability(rawValue: 1 << (8 + type.rawValue - 1))
  }
}

/// `mode` of a slot, `KBAdvMode` (§6.4).
public enum AdvMode: Int, Sendable, CaseIterable {
  case legacy = 0
  case longRange = 1
  case extended = 2
}

/// The tx power levels of `KBAdvTxPower` (§6.4); a device further limits them to `minPwr...maxPwr`.
public enum AdvTxPower {
  public static let levels = [-40, -20, -16, -12, -8, -4, 0, 3, 4, 5, 6, 7, 8]
}

/// The `type` bits of a v2 `getPara` (§6.1, `KBCfgType`).
public struct ConfigSections: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let common = ConfigSections(rawValue: 0x1)
  public static let slots = ConfigSections(rawValue: 0x2)
  public static let triggers = ConfigSections(rawValue: 0x4)
  public static let sensors = ConfigSections(rawValue: 0x8)
  public static let all: ConfigSections = [.common, .slots, .triggers, .sensors]
}

/// The `stype` bits of a v1 `getPara`/`cfg` (§7).
public struct LegacySections: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let sensor = LegacySections(rawValue: 0x1)
  public static let eddystoneUID = LegacySections(rawValue: 0x2)
  public static let iBeacon = LegacySections(rawValue: 0x4)
  public static let eddystoneURL = LegacySections(rawValue: 0x10)
  public static let common = LegacySections(rawValue: 0x20)
  public static let trigger = LegacySections(rawValue: 0x40)
  /// The initial read of the legacy SDK: 0x37.
  public static let initialRead: LegacySections = [.common, .iBeacon, .eddystoneURL, .eddystoneUID, .sensor]

  /// The block a key of the flat v1 object belongs to (A1 `objectsToParaDict`): iBeacon keys → 0x4,
  /// UID → 0x2, URL → 0x10, sensor keys → 0x1, everything else → common 0x20.
  public static func block(ofKey key: String) -> LegacySections {
    switch key {
    case "uuid", "majorID", "minorID": .iBeacon
    case "nid", "sid": .eddystoneUID
    case "url": .eddystoneURL
    case "sensor", "msItvl", "tsThd", "hsThd": .sensor
    default: .common
    }
  }
}
