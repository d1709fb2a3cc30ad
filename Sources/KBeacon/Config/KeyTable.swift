/// The key → allowed values table for both protocol generations (docs/protocols/kbeacon.md §6.3–§6.6 and §7).
/// `spec(for:in:type:)` picks the row for a key in a scope, preferring one bound to the entry's type.
public enum KeyTable {
  /// Every v2 (KBeacon Pro) row.
  public static let pro: [ConfigKeySpec] = proCommon + proSlot + proTrigger + proSensor
  /// Every v1 (legacy KBeacon) row.
  public static let legacy: [ConfigKeySpec] = legacyCommonRows + legacyTriggerRows
  public static let all: [ConfigKeySpec] = pro + legacy

  /// The row for `key` in `scope` for an entry of `type` (adv `type`, `trType`, `srType`), or nil when
  /// the spec does not know the key there.
  public static func spec(for key: String, in scope: ConfigScope, type: Int? = nil) -> ConfigKeySpec? {
    let rows = all.filter { $0.key == key && $0.scope == scope }
    if let type, let exact = rows.first(where: { $0.types?.contains(type) == true }) { return exact }
    return rows.first { $0.types == nil }
  }

  /// The keys a scope knows for an entry type (the base keys plus the type's own).
  public static func keys(in scope: ConfigScope, type: Int? = nil) -> [ConfigKeySpec] {
    all.filter { row in
      guard row.scope == scope else { return false }
      guard let types = row.types else { return true }
      return type.map(types.contains) ?? false
    }
  }

  static let int32 = Int(Int32.min)...Int(Int32.max)
  static let uint32 = 0...Int(UInt32.max)

  // MARK: v2 common (§6.3)
  static let proCommon: [ConfigKeySpec] = [
    .init("model", .common, .text(0...64, .any), .readOnly, "model string (picks the firmware file)"),
    .init("ver", .common, .text(0...32, .any), .readOnly, "firmware version, e.g. V5.22"),
    .init("hver", .common, .text(0...32, .any), .readOnly, "hardware version (key into firmware JSON)"),
    .init("maxSlot", .common, .integer(0...255), .readOnly, "number of advertisement slots"),
    .init("maxTg", .common, .integer(0...255), .readOnly, "number of triggers"),
    .init("minPwr", .common, .integer(-128...127), .readOnly, "lowest tx power, dBm"),
    .init("maxPwr", .common, .integer(-128...127), .readOnly, "highest tx power, dBm"),
    .init("maxPrd", .common, .number(0...1_000_000), .readOnly, "longest advertising period, ms"),
    .init("bCap", .common, .integer(uint32), .readOnly, "basic capability bits (BasicCapability)"),
    .init("trCap", .common, .integer(uint32), .readOnly, "trigger capability: bit trType−1"),
    .init("btPt", .common, .integer(0...255), .readOnly, "battery percent (may exceed 100 slightly)"),
    .init("id", .common, .integer(uint32), .readOnly, "serial number (firmware ≥ 6.67)"),
    .init("name", .common, .text(0...18, .any), .readWrite, "device name"),
    .init("pwd", .common, .text(8...16, .any), .writeOnly, "new password"),
    .init(
      "meaPwr", .common, .integer(-100...10), .readWrite, "measured power at 1 m, dBm",
      note: "iOS range −100..10 (Android −80..0)"),
    .init("atPwr", .common, .flag, .readWrite, "always power on / advertise after power-on"),
    .init(
      "nBlk", .common, .integer(0...65535), .readWrite, "LED blink interval, normal",
      note: "[I] units and range undocumented"),
    .init(
      "lBlk", .common, .integer(0...65535), .readWrite, "LED blink interval, low battery",
      note: "[I] units and range undocumented"),
  ]

  // MARK: v2 slots (§6.4)
  static let proSlot: [ConfigKeySpec] = [
    .init("slot", .slot, .integer(0...4), "slot index"),
    .init("type", .slot, .choice(AdvType.allCases.map(\.rawValue)), "advertisement type (AdvType)"),
    .init(
      "txPwr", .slot, .integer(-40...8), "tx power, dBm; also within minPwr...maxPwr",
      note: "KBAdvTxPower levels in AdvTxPower.levels"),
    .init("advPrd", .slot, .number(100...40000), "advertising period, ms"),
    .init("conn", .slot, .flag, "connectable"),
    .init("trAdv", .slot, .flag, "advertise only when a trigger fires"),
    .init("mode", .slot, .choice(AdvMode.allCases.map(\.rawValue)), "0 legacy, 1 long range, 2 extended"),
    .init("chMsk", .slot, .integer(0...6), "channels to disable: 4 ch37, 2 ch38, 1 ch39"),
    .init("uuid", .slot, .text(36...36, .uuid), types: [5, 8], "iBeacon UUID / EBeacon plain UUID"),
    .init("majorID", .slot, .integer(0...65535), types: [5], "iBeacon major"),
    .init("minorID", .slot, .integer(0...65535), types: [5], "iBeacon minor"),
    .init("nid", .slot, .text(22...22, .hex(digits: 20)), types: [2], "Eddystone namespace ID"),
    .init("sid", .slot, .text(14...14, .hex(digits: 12)), types: [2], "Eddystone instance ID"),
    .init("url", .slot, .text(3...60, .any), types: [4], "Eddystone URL (device compresses)"),
    .init("ht", .slot, .flag, types: [1], "KSensor: include temperature/humidity"),
    .init("axis", .slot, .flag, types: [1, 7], "include accelerometer"),
    .init("lux", .slot, .flag, types: [1], "KSensor: include light"),
    .init("pir", .slot, .flag, types: [1], "KSensor: include PIR"),
    .init("voc", .slot, .flag, types: [1], "KSensor: include VOC"),
    .init("co2", .slot, .flag, types: [1], "KSensor: include CO2"),
    .init("mag", .slot, .flag, types: [1], "KSensor: include GEO"),
    .init("rcd", .slot, .flag, types: [1], "KSensor: include unread record count"),
    .init("aes", .slot, .choice([0, 1]), types: [1, 8], "encryption: 1 = AES-ECB"),
    .init("enItvl", .slot, .integer(1...100), types: [8], "EBeacon key rotation interval, s"),
    .init("aoa", .slot, .integer(0...255), types: [7], "AOA type", note: "[I] range undocumented"),
    .init("aItvl", .slot, .integer(0...255), types: [7], "system/acc frame every N AOA frames"),
  ]

  // MARK: v2 triggers (§6.5)
  static let proTrigger: [ConfigKeySpec] = [
    .init("trIdx", .trigger, .integer(0...4), "trigger index (0..maxTg−1; 5 by default)"),
    .init("trType", .trigger, .choice(TriggerType.allCases.map(\.rawValue)), "trigger type (TriggerType)"),
    .init("trAct", .trigger, .bitmask(0x3F), "actions (TriggerAction)"),
    .init("trPara", .trigger, .integer(2...127), types: [1], "motion sensitivity, 16 mg units"),
    .init("trPara", .trigger, .integer(-90...90), types: [2], "tilt below-angle, °", note: "[I] range"),
    .init("trPara", .trigger, .integer(-50...1000), types: [8, 9], "temperature threshold, °C"),
    .init("trPara", .trigger, .integer(1...99), types: [10, 11], "humidity threshold, %"),
    .init("trPara", .trigger, .integer(3...36000), types: [12], "HT report interval, s"),
    .init("trPara", .trigger, .integer(5...3600), types: [13], "PIR repeat suppression, s"),
    .init("trPara", .trigger, .integer(1...65535), types: [14, 15], "lux threshold"),
    .init("trPara", .trigger, .integer(100...43_200_000), types: [20], "event period, ms"),
    .init("trPara", .trigger, .integer(int32), "type-specific parameter", note: "[I] no range for this type"),
    .init("slot", .trigger, .integer(0...4), "slot advertised when triggered"),
    .init("trAChg", .trigger, .flag, "iBeacon UUID + trigger type while triggered"),
    .init("trATm", .trigger, .integer(1...7200), "triggered advertising duration, s"),
    .init(
      "trAPrd", .trigger, .number(100...40000), "triggered advertising period, ms", note: "[I] upper bound = advPrd's"),
    .init("trAPwr", .trigger, .integer(-40...8), "triggered tx power, dBm"),
    .init("odr", .trigger, .choice([0, 1, 2, 3]), types: [1], "accelerometer ODR: 1/10/25/50 Hz"),
    .init("ocnt", .trigger, .integer(1...255), types: [1], "wake-up duration, 1/ODR units"),
    .init("rptPrd", .trigger, .integer(0...255), types: [2], "repeat report period, min"),
    .init("aAng", .trigger, .integer(-90...90), types: [2], "above-angle threshold, °"),
  ]

  // MARK: v2 sensors (§6.6)
  static let proSensor: [ConfigKeySpec] = [
    .init("srType", .sensor, .choice(SensorType.allCases.map(\.rawValue)), "sensor type (SensorType)"),
    .init("lgItvl", .sensor, .integer(1...14400), "log interval, s"),
    .init("dPrd0", .sensor, .integer(uint32), "disable period 0: startH<<24|startM<<16|endH<<8|endM, UTC"),
    .init("dPrd1", .sensor, .integer(uint32), "disable period 1"),
    .init("dPrd2", .sensor, .integer(uint32), "disable period 2"),
    .init("log", .sensor, .flag, types: [0x2, 0x10, 0x20, 0x40, 0x41], "record to flash"),
    .init("msItvl", .sensor, .integer(1...200), types: [0x2, 0x10, 0x20], "measure interval, s"),
    .init("msItvl", .sensor, .integer(3...200), types: [0x40], "measure interval, s"),
    .init("msItvl", .sensor, .integer(10...3600), types: [0x41], "measure interval, s"),
    .init("msItvl", .sensor, .integer(1...3600), types: [0x42], "measure interval, s", note: "[I] range"),
    .init("tsThd", .sensor, .integer(0...200), types: [0x2], "temperature log threshold, 0.1 °C"),
    .init("hsThd", .sensor, .integer(0...200), types: [0x2], "humidity log threshold, 0.1 %"),
    .init("model", .sensor, .text(0...32, .any), .readOnly, types: [0x1], "accelerometer model"),
    .init("bkOff", .sensor, .integer(5...3600), types: [0x10], "PIR back-off, s"),
    .init("luxThd", .sensor, .integer(0...200), types: [0x20], "lux log threshold"),
    .init("vocThd", .sensor, .integer(1...250), types: [0x40], "VOC log threshold"),
    .init("noxThd", .sensor, .integer(1...250), types: [0x40], "NOx log threshold"),
    .init("co2Thd", .sensor, .integer(0...256), types: [0x41], "CO2 log threshold"),
    .init("asc", .sensor, .flag, types: [0x41], "CO2 auto self-calibration"),
    .init("pThd", .sensor, .integer(256...65535), types: [0x42], "parking threshold, mg"),
    .init("pDly", .sensor, .integer(1...100), types: [0x42], "parking delay, ×10 s"),
    .init("tag", .sensor, .integer(0...65535), types: [0x42], "idle-parking tag", note: "[I] range"),
    .init("fcl", .sensor, .flag, types: [0x42], "force calibration", note: "[I] 0/1"),
    .init("mode", .sensor, .choice(AdvMode.allCases.map(\.rawValue)), types: [0x44], "adv mode to scan"),
    .init("rssi", .sensor, .integer(-100...10), types: [0x44], "RSSI filter, dBm"),
    .init("dur", .sensor, .integer(1...60000), types: [0x44], "scan duration, ×10 ms"),
    .init("chMsk", .sensor, .integer(0...7), types: [0x44], "scan channel mask", note: "[?] bit meaning"),
    .init("itvl", .sensor, .integer(0...7200), types: [0x44], "scan interval, s"),
    .init("mItvl", .sensor, .integer(0...7200), types: [0x44], "scan interval when moving, s", note: "[I] range"),
    .init("aSlot", .sensor, .integer(0...4), types: [0x44], "slot that carries scan results"),
    .init("max", .sensor, .integer(1...100), types: [0x44], "maximum devices"),
    .init("id", .sensor, .choice(Array(0...6)), types: [0x45], "NFC URI prefix code"),
    .init("uri", .sensor, .text(0...256, .any), types: [0x45], "NFC URI"),
  ]
}
