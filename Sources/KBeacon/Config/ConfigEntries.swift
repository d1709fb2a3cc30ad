import JSON

/// The v2 root object's own keys (docs/protocols/kbeacon.md §6.3); the arrays are held apart in
/// `KBeaconConfiguration`.
public struct CommonConfig: ConfigEntry {
  public var fields: JSONObject
  public static let scope = ConfigScope.common
  public static let identityKey: String? = nil
  public init(fields: JSONObject = JSONObject()) { self.fields = fields }

  public var capabilities: BasicCapability { self[CommonKey.bCap] ?? [] }
}

/// One `advObj` entry (§6.4).
public struct SlotConfig: ConfigEntry {
  public var fields: JSONObject
  public static let scope = ConfigScope.slot
  public static let identityKey: String? = "slot"
  public init(fields: JSONObject) { self.fields = fields }

  /// A slot with its index and type set (the SDK always emits `type`, §6.2).
  public init(slot: Int, type: AdvType) {
    fields = ["slot": .int(slot), "type": .int(type.rawValue)]
  }

  public var index: Int? { self[SlotKey.slot] }
  public var advType: AdvType? { self[SlotKey.type] }
  public func problems() -> [String] { problems(entryType: fields["type"]?.intValue) }
}

/// One `trObj` entry (§6.5).
public struct TriggerConfig: ConfigEntry {
  public var fields: JSONObject
  public static let scope = ConfigScope.trigger
  public static let identityKey: String? = "trIdx"
  public init(fields: JSONObject) { self.fields = fields }

  public init(index: Int, type: TriggerType) {
    fields = ["trIdx": .int(index), "trType": .int(type.rawValue)]
  }

  public var index: Int? { self[TriggerKey.trIdx] }
  public var triggerType: TriggerType? { self[TriggerKey.trType] }
  public var actions: TriggerAction { self[TriggerKey.trAct] ?? [] }
  public func problems() -> [String] { problems(entryType: fields["trType"]?.intValue) }
}

/// One `srObj` entry (§6.6).
public struct SensorConfig: ConfigEntry {
  public var fields: JSONObject
  public static let scope = ConfigScope.sensor
  public static let identityKey: String? = "srType"
  public init(fields: JSONObject) { self.fields = fields }

  public init(type: SensorType) { fields = ["srType": .int(type.rawValue)] }

  public var sensorType: SensorType? { self[SensorKey.srType] }
  public func problems() -> [String] { problems(entryType: fields["srType"]?.intValue) }
}
