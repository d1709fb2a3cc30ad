import JSON

/// Device commands (docs/protocols/kbeacon.md §6.7), sent as JSON requests; success is ack cause 0.
public enum Command: Hashable, Sendable {
  /// `{"msg":"ring","ringTime":ms,"ringType":t,"ledOn":ms,"ledOff":ms}` — the shape of the spec's example.
  /// `ringType` bit meanings are firmware-dependent (v2 README: 1 beep, 2 LED, 4 vibration, 0 stop; v1:
  /// 0 LED, 1 beep, 2 both) [?], so the LED timing is always sent: firmware uses it only when the LED
  /// flashes. Defaults 200 ms on / 1800 ms off: KKM's README example (PDA README §4.3.7.1) and the client
  /// used on real BCPro tags (HAR `ring`) both send these; KKM's sensor demo sends 100/900.
  case ring(milliseconds: Int, type: Int, ledOn: Int? = 200, ledOff: Int? = 1800)
  /// `{"msg":"admin","stype":"reset"}`: factory-reset the parameters (v2).
  case factoryReset
  /// `{"msg":"admin","stype":"pwroff"}`: power off (devices with a button).
  case powerOff
  /// `{"msg":"reset"}`: the v1 reset.
  case legacyReset

  /// The reset for a generation.
  public static func reset(for generation: ProtocolGeneration) -> Command {
    generation == .pro ? .factoryReset : .legacyReset
  }

  public var json: JSONObject {
    switch self {
    case .ring(let ms, let type, let on, let off):
      var o: JSONObject = ["msg": .string("ring"), "ringTime": .int(ms), "ringType": .int(type)]
      if let on { o["ledOn"] = .int(on) }
      if let off { o["ledOff"] = .int(off) }
      return o
    case .factoryReset: return ["msg": .string("admin"), "stype": .string("reset")]
    case .powerOff: return ["msg": .string("admin"), "stype": .string("pwroff")]
    case .legacyReset: return ["msg": .string("reset")]
    }
  }

  public var bytes: [UInt8] { JSONWriter.bytes(.object(json)) }

  /// Parses a command message (device side); nil when `json` is not one.
  public init?(json: JSONObject) {
    switch (json["msg"]?.stringValue, json["stype"]?.stringValue) {
    case ("ring", _):
      guard let ms = json["ringTime"]?.intValue else { return nil }
      self = .ring(
        milliseconds: ms, type: json["ringType"]?.intValue ?? 0, ledOn: json["ledOn"]?.intValue,
        ledOff: json["ledOff"]?.intValue)
    case ("admin", "reset"): self = .factoryReset
    case ("admin", "pwroff"): self = .powerOff
    case ("reset", _): self = .legacyReset
    default: return nil
    }
  }
}
