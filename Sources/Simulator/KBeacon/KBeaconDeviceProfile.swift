import JSON
import KBeacon

/// What a simulated KBeacon is and can do: its protocol generation, capabilities and factory configuration
/// (docs/protocols/kbeacon.md §6.3 `maxSlot`, `maxTg`, `minPwr`/`maxPwr`, `bCap`, `trCap`; §7 for v1). The
/// device reports these in its common config and enforces them on `cfg`.
public struct KBeaconDeviceProfile: Sendable, Hashable {
  public var generation: ProtocolGeneration
  /// The ATT MTU the device reports in auth phase 2 (§5).
  public var deviceMTU: Int
  /// Whether a slot may be made non-connectable (`conn` 0). Devices without a button keep at least
  /// connectable advertising [I].
  public var allowsNonConnectable: Bool
  /// Sensor types that keep history (§9).
  public var historySensors: Set<Int>
  /// The configuration after a factory reset.
  public var factoryConfiguration: KBeaconConfiguration

  public init(
    generation: ProtocolGeneration, deviceMTU: Int, allowsNonConnectable: Bool, historySensors: Set<Int>,
    factoryConfiguration: KBeaconConfiguration
  ) {
    self.generation = generation
    self.deviceMTU = deviceMTU
    self.allowsNonConnectable = allowsNonConnectable
    self.historySensors = historySensors
    self.factoryConfiguration = factoryConfiguration
  }

  var common: CommonConfig { factoryConfiguration.common }
  var maxSlot: Int { common[CommonKey.maxSlot] ?? 5 }
  var maxTriggers: Int { common[CommonKey.maxTg] ?? 5 }
  var minPower: Int { common[CommonKey.minPwr] ?? common[LegacyKey.minPwr] ?? -40 }
  var maxPower: Int { common[CommonKey.maxPwr] ?? common[LegacyKey.maxPwr] ?? 4 }
  var capabilities: BasicCapability { BasicCapability(rawValue: common.fields["bCap"]?.intValue ?? 0) }
  var triggerCapability: Int { common.fields["trCap"]?.intValue ?? 0 }

  /// A KBeacon Pro with a button, beep, accelerometer and temperature/humidity sensor with history:
  /// 5 slots (iBeacon in slot 0, Eddystone URL in slot 1), 5 triggers, tx power −40…+4 dBm.
  public static func pro(name: String = "KBPro_SIM", serial: Int = 214_810) -> KBeaconDeviceProfile {
    let advTypes: [AdvType] = [.kSensor, .eddystoneUID, .eddystoneTLM, .eddystoneURL, .iBeacon, .system]
    let caps: BasicCapability = advTypes.reduce([
      .button, .beep, .accelerometer, .humidity, .historyRecord, .securityDFU,
    ]) {
      $0.union(.advType($1))
    }
    let triggers: [TriggerType] =
      [.accMotion, .buttonLongPress, .buttonSingleClick, .buttonDoubleClick, .buttonTripleClick]
      + [.temperatureAbove, .temperatureBelow, .humidityAbove, .humidityBelow, .humidityPeriodically]
    var common = CommonConfig()
    common[CommonKey.model] = "KBPro_SIM"
    common[CommonKey.ver] = "V5.22"
    common[CommonKey.hver] = "V1.0"
    common[CommonKey.maxSlot] = 5
    common[CommonKey.maxTg] = 5
    common[CommonKey.minPwr] = -40
    common[CommonKey.maxPwr] = 4
    common[CommonKey.maxPrd] = 20000.0
    common[CommonKey.bCap] = caps
    common[CommonKey.trCap] = triggers.reduce(0) { $0 | $1.capabilityBit }
    common[CommonKey.btPt] = 98
    common[CommonKey.id] = serial
    common[CommonKey.name] = name
    common[CommonKey.meaPwr] = -59
    common[CommonKey.atPwr] = true
    common[CommonKey.nBlk] = 0
    common[CommonKey.lBlk] = 0
    var iBeacon = SlotConfig(slot: 0, type: .iBeacon)
    iBeacon[SlotKey.txPwr] = 0
    iBeacon[SlotKey.advPrd] = 1022.5
    iBeacon[SlotKey.conn] = true
    iBeacon[SlotKey.trAdv] = false
    iBeacon[SlotKey.mode] = .legacy
    iBeacon[SlotKey.uuid] = "7777772E-6B6B-6D63-6E2E-636F6D000001"
    iBeacon[SlotKey.majorID] = 1
    iBeacon[SlotKey.minorID] = 1
    var url = SlotConfig(slot: 1, type: .eddystoneURL)
    url[SlotKey.txPwr] = -4
    url[SlotKey.advPrd] = 2000.0
    url[SlotKey.conn] = true
    url[SlotKey.trAdv] = false
    url[SlotKey.mode] = .legacy
    url[SlotKey.url] = "https://www.kkmcn.com/"
    let slots = [iBeacon, url] + (2..<5).map { SlotConfig.disabled($0) }
    var ht = SensorConfig(type: .humidity)
    ht[SensorKey.log] = true
    ht[SensorKey.lgItvl] = 300
    ht[SensorKey.msItvl] = 3
    ht[SensorKey.tsThd] = 5
    ht[SensorKey.hsThd] = 30
    ht[SensorKey.dPrd0] = 0
    var acc = SensorConfig(type: .accMotion)
    acc[SensorKey.model] = "LIS3DH"
    let config = KBeaconConfiguration(
      generation: .pro, common: common, slots: slots, triggers: (0..<5).map { TriggerConfig.disabled($0) },
      sensors: [acc, ht])
    return KBeaconDeviceProfile(
      generation: .pro, deviceMTU: 247, allowsNonConnectable: true, historySensors: [0x02], factoryConfiguration: config
    )
  }

  /// A legacy (v1) KBeacon: flat configuration, iBeacon + URL advertising, a button trigger, tx power
  /// −40…+5 dBm, BLE 4.x MTU reporting 23 (so every long message is multi-frame).
  public static func legacy(name: String = "KBeacon_SIM") -> KBeaconDeviceProfile {
    let flat: [(String, JSONValue)] = [
      ("modle", .string("KBN52_SIM")), ("ver", .string("V3.12")), ("hver", .string("V1.0")), ("devName", .string(name)),
      ("type", .int(0x14)), ("advPrd", .double(1000.0)), ("txPwr", .int(0)), ("minPwr", .int(-40)), ("maxPwr", .int(5)),
      ("bCap", .int(0x0B)), ("trCap", .int(0x3)), ("meaPwr", .int(-59)), ("tlmItvl", .int(10)), ("advFlag", .int(0x5)),
      ("uuid", .string("7777772E-6B6B-6D63-6E2E-636F6D000001")), ("majorID", .int(1)), ("minorID", .int(1)),
      ("nid", .string("0x00112233445566778899")), ("sid", .string("0xAABBCCDDEEFF")),
      ("url", .string("https://kkmcn.com")),
      ("sensor", .int(0x2)), ("msItvl", .int(3)), ("tsThd", .int(5)), ("hsThd", .int(30)),
    ]
    let triggers = [
      TriggerConfig(fields: [
        "trType": .int(0x1), "trAct": .int(0), "trPara": .int(2), "trAMode": .int(0), "trAType": .int(0x4),
        "trATm": .int(30), "trAPrd": .double(200.0),
      ]),
      TriggerConfig(fields: [
        "trType": .int(0x2), "trAct": .int(0), "trPara": .int(0x2), "trAMode": .int(0), "trAType": .int(0x4),
        "trATm": .int(30), "trAPrd": .double(200.0),
      ]),
    ]
    let config = KBeaconConfiguration(
      generation: .legacy, common: CommonConfig(fields: JSONObject(flat)), triggers: triggers)
    return KBeaconDeviceProfile(
      generation: .legacy, deviceMTU: 23, allowsNonConnectable: true, historySensors: [0x02],
      factoryConfiguration: config)
  }
}
