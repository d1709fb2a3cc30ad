/// v1 (legacy KBeacon) rows of the key table (docs/protocols/kbeacon.md §7). The flat `cfg` object mixes common,
/// iBeacon, Eddystone and sensor keys; triggers live in `trObj`.
extension KeyTable {
  static let legacyCommonRows: [ConfigKeySpec] = [
    .init("modle", .legacyCommon, .text(0...64, .any), .readOnly, "model string (sic)"),
    .init("ver", .legacyCommon, .text(0...32, .any), .readOnly, "firmware version"),
    .init("hver", .legacyCommon, .text(0...32, .any), .readOnly, "hardware version"),
    .init("devName", .legacyCommon, .text(0...18, .any), "device name"),
    .init("type", .legacyCommon, .bitmask(0x1F), "enabled adv types: 1 KSensor, 2 UID, 4 iBeacon, 8 TLM, 0x10 URL"),
    .init("advPrd", .legacyCommon, .number(0...10000), "advertising period, ms (100–10000, or 0)"),
    .init("txPwr", .legacyCommon, .integer(-40...5), "tx power, dBm"),
    .init("minPwr", .legacyCommon, .integer(-128...127), .readOnly, "lowest tx power, dBm"),
    .init("maxPwr", .legacyCommon, .integer(-128...127), .readOnly, "highest tx power, dBm"),
    .init("bCap", .legacyCommon, .integer(uint32), .readOnly, "capability bits"),
    .init("trCap", .legacyCommon, .integer(uint32), .readOnly, "trigger capability bits"),
    .init("pwd", .legacyCommon, .text(8...16, .any), .writeOnly, "new password"),
    .init("meaPwr", .legacyCommon, .integer(-100...10), "measured power at 1 m, dBm"),
    .init("tlmItvl", .legacyCommon, .integer(2...255), "one TLM every N packets"),
    .init(
      "advFlag", .legacyCommon, .bitmask(0xFF), "bit0 connectable, bit2 auto power-on", note: "[I] other bits kept"),
    .init("uuid", .legacyCommon, .text(36...36, .uuid), "iBeacon UUID"),
    .init("majorID", .legacyCommon, .integer(0...65535), "iBeacon major"),
    .init("minorID", .legacyCommon, .integer(0...65535), "iBeacon minor"),
    .init("nid", .legacyCommon, .text(22...22, .hex(digits: 20)), "Eddystone namespace ID"),
    .init("sid", .legacyCommon, .text(14...14, .hex(digits: 12)), "Eddystone instance ID"),
    .init("url", .legacyCommon, .text(3...60, .any), "Eddystone URL"),
    .init("sensor", .legacyCommon, .bitmask(0x3), "sensors: 1 acc, 2 humidity"),
    .init("msItvl", .legacyCommon, .integer(1...200), "measure interval, s", note: "[I] v2 HT range"),
    .init("tsThd", .legacyCommon, .integer(0...200), "temperature log threshold, 0.1 °C", note: "[I] v2 range"),
    .init("hsThd", .legacyCommon, .integer(0...200), "humidity log threshold, 0.1 %", note: "[I] v2 range"),
  ]

  static let legacyTriggerRows: [ConfigKeySpec] =
    [
      .init("trType", .legacyTrigger, .choice([0, 0x1, 0x2, 0x4, 0x8]), "1 motion, 2 button, 4 nearby, 8 humidity"),
      .init("trAct", .legacyTrigger, .bitmask(0x1F), "actions (v2 bits without 0x20)"),
      .init("trPara", .legacyTrigger, .bitmask(0xF), types: [0x2], "button: 1 hold, 2 single, 4 double, 8 triple"),
      .init("trPara", .legacyTrigger, .integer(int32), "type-specific parameter (motion sensitivity default 2)"),
      .init("trAMode", .legacyTrigger, .flag, "0 advertise only on trigger, 1 always"),
      .init("trAType", .legacyTrigger, .bitmask(0x1F), "v1 adv type sent when triggered"),
      .init("trATm", .legacyTrigger, .integer(10...7200), "triggered advertising duration, s", note: "[I] upper bound"),
      .init("trAPrd", .legacyTrigger, .number(100...10000), "triggered advertising period, ms"),
      .init(
        "htMsk", .legacyTrigger, .bitmask(0x1F), types: [0x8],
        "1 temp above, 2 below, 4 hum above, 8 below, 0x10 report"),
      .init("tpAbv", .legacyTrigger, .integer(-50...1000), types: [0x8], "temperature above, °C", note: "[I] range"),
      .init("tpBlw", .legacyTrigger, .integer(-50...1000), types: [0x8], "temperature below, °C", note: "[I] range"),
      .init("htAbv", .legacyTrigger, .integer(0...100), types: [0x8], "humidity above, %", note: "[I] range"),
      .init("htBlw", .legacyTrigger, .integer(0...100), types: [0x8], "humidity below, %", note: "[I] range"),
    ]
    + ["nSTvl", "nSWin", "nAdPwr", "nAdTvl", "nAlTvl", "nAlWin", "nAlFt", "nAlDs", "nSTm", "nbGid", "nbMode"].map {
      ConfigKeySpec(
        $0, .legacyTrigger, .integer(int32), types: [0x4], "nearby trigger parameter", note: "[?] range undocumented")
    }
}
