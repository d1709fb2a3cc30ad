/// Decoding and encoding of `KSensorFrame` (docs/protocols/kbeacon.md §10.3).
extension KSensorFrame {
  /// `payload` starts at the frame type byte 0x21.
  public init(payload: RawBytes) throws(FrameDecodingError) {
    try FrameDecodingError.require(payload, 3)
    self.init(mask: payload.uint16BE(at: 1))
    var at = 3
    func need(_ n: Int) throws(FrameDecodingError) {
      if payload.count - at < n { throw .truncated(needed: at + n, available: payload.count) }
    }
    if mask & Field.battery != 0 {
      try need(2)
      batteryMillivolts = payload.uint16BE(at: at)
      at += 2
    }
    if mask & Field.temperature != 0 {
      try need(2)
      temperature = Double(payload.int16BE(at: at)) / 256
      at += 2
    }
    if mask & Field.humidity != 0 {
      try need(2)
      let value = Double(payload.int16BE(at: at)) / 256
      at += 2
      if value < 0 {
        extendedTemperature = true
        if let t = temperature { temperature = (-1 - value) * 100 + t }
      } else {
        humidity = value
      }
    }
    if mask & Field.acceleration != 0 {
      try need(6)
      acceleration = Acceleration(
        x: payload.int16BE(at: at), y: payload.int16BE(at: at + 2), z: payload.int16BE(at: at + 4))
      at += 6
    }
    if mask & Field.alarm != 0 {
      try need(1)
      alarm = payload[at]
      at += 1
    }
    if mask & Field.pir != 0 {
      try need(1)
      pir = payload[at]
      at += 1
    }
    if mask & Field.lux != 0 {
      try need(2)
      lux = payload.uint16BE(at: at)
      at += 2
    }
    if mask & Field.voc != 0 {
      try need(5)
      voc = VOCReading(ageTens: payload[at], voc: payload.uint16BE(at: at + 1), nox: payload.uint16BE(at: at + 3))
      at += 5
    }
    if mask & Field.co2 != 0 {
      try need(3)
      co2 = CO2Reading(ageTens: payload[at], ppm: payload.uint16BE(at: at + 1))
      at += 3
    }
    if mask & Field.records != 0 {
      try need(3)
      records = RecordCount(flags: payload[at], count: payload.uint16BE(at: at + 1))
      at += 3
    }
    if mask & ~Field.known != 0 { unparsed = payload.dropping(at) }
  }

  /// The frame bytes from 0x21 on. The mask written is `mask` with the bits of present fields added; the
  /// temperature extension is not produced (temperatures are clamped to the 8.8 range).
  public var frameBytes: [UInt8] {
    var m = mask & 0x0100
    if batteryMillivolts != nil { m |= Field.battery }
    if temperature != nil { m |= Field.temperature }
    if humidity != nil { m |= Field.humidity }
    if acceleration != nil { m |= Field.acceleration }
    if alarm != nil { m |= Field.alarm }
    if pir != nil { m |= Field.pir }
    if lux != nil { m |= Field.lux }
    if voc != nil { m |= Field.voc }
    if co2 != nil { m |= Field.co2 }
    if records != nil { m |= Field.records }
    var out: [UInt8] = [0x21]
    out.appendBE(m)
    if let v = batteryMillivolts { out.appendBE(v) }
    if let v = temperature { out.appendBE(fixed88(v)) }
    if let v = humidity { out.appendBE(fixed88(v)) }
    if let a = acceleration {
      out.appendBE(UInt16(bitPattern: a.x))
      out.appendBE(UInt16(bitPattern: a.y))
      out.appendBE(UInt16(bitPattern: a.z))
    }
    if let v = alarm { out.append(v) }
    if let v = pir { out.append(v) }
    if let v = lux { out.appendBE(v) }
    if let v = voc {
      out.append(v.ageTens)
      out.appendBE(v.voc)
      out.appendBE(v.nox)
    }
    if let v = co2 {
      out.append(v.ageTens)
      out.appendBE(v.ppm)
    }
    if let v = records {
      out.append(v.flags)
      out.appendBE(v.count)
    }
    return out
  }

  /// As Eddystone service data (`AA FE 21 …`), the way KBeacon Pro sends it.
  public var eddystoneADStructure: [UInt8] { ADEncoder.serviceData16(BeaconConstants.eddystoneService, frameBytes) }

  /// As KKM manufacturer data (`53 0A 21 …`).
  public var manufacturerADStructure: [UInt8] { ADEncoder.manufacturerData(BeaconConstants.kkmCompanyID, frameBytes) }
}
