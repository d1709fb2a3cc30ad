/// A live event from the FEA3 indication characteristic (docs/protocols/kbeacon.md §8.3). FEA3 payloads are
/// not framed like FEA1/FEA2.
public enum IndicationEvent: Hashable, Sendable {
  /// v2 temperature/humidity trigger (types 8–11): `UTC u32, temp s8.8, hum 8.8`.
  case humidity(trigger: TriggerType, utc: UInt32, celsius: Double, humidity: Double)
  /// v2 event whose body layout the spec does not document (buttons 3–6, motion, …): type + raw body.
  case trigger(type: Int, body: [UInt8])
  /// v1 humidity notification (type 2): `UTC u32, temp s8.8, hum 8.8`.
  case legacyHumidity(utc: UInt32, celsius: Double, humidity: Double)
  /// v1 button notification (type 3): 2 long press, 3 single, 4 double, 5 triple click.
  case legacyButton(press: Int)
  /// v1 proximity notification (type 1): `UTC u32, MAC low 4 bytes, major u16, minor u16, seconds u8, distance u8`.
  case legacyProximity(utc: UInt32, macLow: [UInt8], major: UInt16, minor: UInt16, seconds: UInt8, distance: UInt8)
  /// v1 motion notification (type 4) or another v1 type: raw body.
  case legacy(type: Int, body: [UInt8])

  /// Decodes one indication payload.
  public init(payload: [UInt8], generation: ProtocolGeneration) throws(KBeaconError) {
    var r = FrameReader(payload)
    let first = try r.u8("event type")
    switch generation {
    case .pro:
      let type = Int(first & 0x3F)
      if let t = TriggerType(rawValue: type), (8...11).contains(type) {
        let utc = try r.u32("UTC")
        let temp = try r.u16("temperature")
        let hum = try r.u16("humidity")
        self = .humidity(trigger: t, utc: utc, celsius: fixed88(temp), humidity: fixed88(hum))
      } else {
        self = .trigger(type: type, body: r.rest())
      }
    case .legacy:
      switch first {
      case 1:
        self = .legacyProximity(
          utc: try r.u32("UTC"), macLow: try r.take(4, "MAC"), major: try r.u16("major"), minor: try r.u16("minor"),
          seconds: try r.u8("seconds"), distance: try r.u8("distance"))
      case 2:
        guard payload.count >= 9 else { throw .malformedFrame("humidity notification shorter than 9 bytes") }
        self = .legacyHumidity(
          utc: try r.u32("UTC"), celsius: fixed88(try r.u16("temp")), humidity: fixed88(try r.u16("hum")))
      case 3: self = .legacyButton(press: Int(try r.u8("button event")))
      default: self = .legacy(type: Int(first), body: r.rest())
      }
    }
  }
}

extension IndicationEvent {
  /// The v2 payload of an event (device side): `type & 0x3F`, then `UTC, temp, hum` for HT triggers or the
  /// raw body. Nil for the v1 cases, which a v2 device does not send.
  public var proPayload: [UInt8]? {
    switch self {
    case .humidity(let trigger, let utc, let celsius, let humidity):
      var out: [UInt8] = [UInt8(trigger.rawValue & 0x3F)]
      out.appendBigEndian(utc)
      out.appendBigEndian(fixed88Raw(celsius))
      out.appendBigEndian(fixed88Raw(humidity))
      return out
    case .trigger(let type, let body): return [UInt8(type & 0x3F)] + body
    default: return nil
    }
  }
}

/// Signed 8.8 fixed point (int16 / 256), as temperature and humidity travel (§8.3, §9).
func fixed88(_ raw: UInt16) -> Double { Double(Int16(bitPattern: raw)) / 256 }

/// The inverse of `fixed88`, rounded to the nearest step. A value beyond the format's −128…127.996
/// saturates and NaN gives 0, so a reading from a state file (`1e300`) cannot trap the conversion.
func fixed88Raw(_ value: Double) -> UInt16 {
  let steps = (value * 256).rounded()
  let saturated = steps.isNaN ? 0 : min(max(steps, Double(Int16.min)), Double(Int16.max))
  return UInt16(bitPattern: Int16(saturated))
}

extension SlotConfig {
  /// The write that disables a slot: `type` 0 (§6.2).
  public static func disabled(_ slot: Int) -> SlotConfig { SlotConfig(slot: slot, type: .disabled) }
}

extension TriggerConfig {
  /// The write that disables a trigger: `trType` 0 at its index (§6.2).
  public static func disabled(_ index: Int) -> TriggerConfig { TriggerConfig(index: index, type: .disabled) }

  /// Whether a device's `trCap` allows this trigger type (bit trType − 1, §6.3).
  public static func isSupported(_ type: TriggerType, triggerCapability: Int) -> Bool {
    type == .disabled || triggerCapability & type.capabilityBit != 0
  }
}
