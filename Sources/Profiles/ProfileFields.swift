/// The field tables of profile version 1, one per object kind, with their KBeacon v2 mapping and ranges
/// (docs/protocols/kbeacon.md §6.3 common, §6.4 slots, §6.5 triggers, §6.6 sensors). Ranges are the static ones;
/// device-specific limits (tx power bounds, slot and trigger counts, capabilities) are checked after the
/// device is read back.
///
/// [I] choices: the advertising period is limited to 100–10000 ms, the range both generations accept
/// (v1 §7 says 100–10000; v2 allows up to 40000 and `maxPrd`); measured power to −100…10 (the iOS SDK's
/// range; Android's is −80…0).
public enum ProfileFields {
  public static let txPower = FieldSpec.Kind.integer(-40...8)
  public static let slotIndex = FieldSpec.Kind.integer(0...4)

  /// `desired` root keys other than the `slots`, `triggers` and `sensors` arrays.
  public static let common: [FieldSpec] = [
    FieldSpec(
      "name", "name", .text(maxLength: 18, format: .plain), help: "Device name (advertised in scan responses)."),
    FieldSpec(
      "measuredPower", "meaPwr", .integer(-100...10), help: "Measured power at 1 m, dBm (iBeacon calibration)."),
    FieldSpec("alwaysPowerOn", "atPwr", .boolean, help: "Start advertising automatically after power-on."),
  ]

  /// Slot types (`type`, KBAdvType in §6.4) a profile may set.
  public static let slotTypes: [(String, Int)] = [
    ("off", 0), ("ksensor", 1), ("eddystone-uid", 2), ("eddystone-tlm", 3), ("eddystone-url", 4), ("ibeacon", 5),
    ("system", 6),
  ]

  /// Keys every slot may carry.
  public static let slotBase: [FieldSpec] = [
    FieldSpec("slot", "slot", slotIndex, templatable: false, help: "Slot index 0–4."),
    FieldSpec(
      "type", "type", .choice(slotTypes), templatable: false, help: "What the slot advertises; off disables it."),
    FieldSpec(
      "txPower", "txPwr", txPower, help: "Transmit power, dBm; must also lie within the device's minPwr…maxPwr."),
    FieldSpec("intervalMs", "advPrd", .number(100...10000), help: "Advertising period in milliseconds."),
    FieldSpec("connectable", "conn", .boolean, help: "Whether the slot's advertisements accept connections."),
    FieldSpec("triggerOnly", "trAdv", .boolean, help: "Advertise only while a trigger fires."),
    FieldSpec(
      "mode", "mode", .choice([("legacy", 0), ("long-range", 1), ("extended", 2)]), help: "Advertising PHY mode."),
  ]

  /// Keys a slot may carry only for its type.
  public static let slotByType: [String: [FieldSpec]] = [
    "ibeacon": [
      FieldSpec("uuid", "uuid", .text(maxLength: 36, format: .uuid), help: "Proximity UUID."),
      FieldSpec("major", "majorID", .integer(0...65535), help: "iBeacon major."),
      FieldSpec("minor", "minorID", .integer(0...65535), help: "iBeacon minor."),
    ],
    "eddystone-uid": [
      FieldSpec("namespace", "nid", .text(maxLength: 22, format: .hex(digits: 20)), help: "10-byte namespace."),
      FieldSpec("instance", "sid", .text(maxLength: 14, format: .hex(digits: 12)), help: "6-byte instance."),
    ],
    "eddystone-url": [
      FieldSpec("url", "url", .text(maxLength: 60, format: .eddystoneURL), help: "The advertised URL.")
    ],
    "ksensor": [
      FieldSpec(
        "include", nil,
        .switches([
          ("temperature-humidity", "ht"), ("acceleration", "axis"), ("light", "lux"), ("pir", "pir"), ("voc", "voc"),
          ("co2", "co2"), ("magnetometer", "mag"), ("record-count", "rcd"),
        ]), templatable: false, help: "Sensor readings the KSensor frame carries; the rest are switched off.")
    ],
    "eddystone-tlm": [], "system": [], "off": [],
  ]

  public static let triggerTypes: [(String, Int)] = [
    ("off", 0), ("motion", 1), ("tilt", 2), ("button-long-press", 3), ("button-single-click", 4),
    ("button-double-click", 5), ("button-triple-click", 6), ("cutoff", 7), ("temperature-above", 8),
    ("temperature-below", 9), ("humidity-above", 10), ("humidity-below", 11), ("humidity-periodic", 12),
    ("pir", 13), ("light-above", 14), ("light-below", 15), ("periodic", 20),
  ]

  /// `desired.triggers[]` (§6.5).
  public static let trigger: [FieldSpec] = [
    FieldSpec(
      "index", "trIdx", .integer(0...4), templatable: false, help: "Trigger instance; below the device's maxTg."),
    FieldSpec(
      "type", "trType", .choice(triggerTypes), templatable: false, help: "What fires the trigger; off disables it."),
    FieldSpec(
      "actions", "trAct",
      .flags([("advertise", 0x1), ("alert", 0x2), ("record", 0x4), ("vibrate", 0x8), ("report", 0x10), ("scan", 0x20)]),
      templatable: false, help: "What the device does when the trigger fires."),
    FieldSpec(
      "parameter", "trPara", .integer(-50...43_200_000),
      help: "Type-specific threshold (sensitivity, °C, %, s, lux, ms)."),
    FieldSpec(
      "slot", "slot", slotIndex, help: "Slot to advertise while triggered (required with the advertise action)."),
    FieldSpec("changeUUID", "trAChg", .boolean, help: "iBeacon UUID becomes UUID + trigger type while triggered."),
    FieldSpec("durationS", "trATm", .integer(1...7200), help: "How long to advertise once triggered, seconds."),
    FieldSpec("intervalMs", "trAPrd", .number(100...10000), help: "Advertising period while triggered, ms."),
    FieldSpec("txPower", "trAPwr", txPower, help: "Transmit power while triggered, dBm."),
  ]

  public static let sensorTypes: [(String, Int)] = [
    ("temperature-humidity", 0x2), ("pir", 0x10), ("light", 0x20), ("voc", 0x40), ("co2", 0x41),
  ]

  /// `desired.sensors[]` (§6.6).
  public static let sensor: [FieldSpec] = [
    FieldSpec("type", "srType", .choice(sensorTypes), templatable: false, help: "Which sensor this configures."),
    FieldSpec("log", "log", .boolean, help: "Record readings to flash history."),
    FieldSpec("logIntervalS", "lgItvl", .integer(1...14400), help: "Log interval, seconds."),
    FieldSpec("measureIntervalS", "msItvl", .integer(1...3600), help: "Measurement interval, seconds."),
    FieldSpec(
      "temperatureThreshold", "tsThd", .number(0...20, scale: 10),
      help: "Log when temperature changes by this much, °C."),
    FieldSpec(
      "humidityThreshold", "hsThd", .number(0...20, scale: 10), help: "Log when humidity changes by this much, %."),
    FieldSpec("luxThreshold", "luxThd", .integer(0...200), help: "Log when light changes by this much, lux."),
    FieldSpec("backoffS", "bkOff", .integer(5...3600), help: "PIR: ignore repeats for this long, seconds."),
  ]
}
