/// Eddystone-TLM, unencrypted version 0 (docs/protocols/beacon-formats.md §2 "TLM"): `20 00 VBATT[2] TEMP[2] ADV_CNT[4]
/// SEC_CNT[4]`, all big-endian; service data AD length 0x11 (14 bytes after the UUID). Version 0x01 (the
/// encrypted eTLM) is reported as `.unsupportedVersion`.
public struct EddystoneTLMFrame: Sendable, Hashable, Codable {
  /// Battery voltage in mV; nil when the beacon sends 0 ("not supported").
  public var batteryMillivolts: UInt16?
  /// °C from the signed 8.8 fixed-point field; nil when the beacon sends 0x8000 ("not supported").
  public var temperature: Double?
  /// Advertising PDUs sent since power-up or reboot.
  public var advertisingCount: UInt32
  /// Time since power-up or reboot in 0.1 s units (SEC_CNT as sent).
  public var uptimeTenths: UInt32

  public init(batteryMillivolts: UInt16?, temperature: Double?, advertisingCount: UInt32, uptimeTenths: UInt32) {
    self.batteryMillivolts = batteryMillivolts
    self.temperature = temperature
    self.advertisingCount = advertisingCount
    self.uptimeTenths = uptimeTenths
  }

  /// Seconds since power-up (SEC_CNT / 10).
  public var uptimeSeconds: Double { Double(uptimeTenths) / 10 }

  static let temperatureUnsupported: UInt16 = 0x8000

  public init(payload: RawBytes) throws(FrameDecodingError) {
    try FrameDecodingError.require(payload, 2)
    guard payload[1] == 0 else { throw .unsupportedVersion(payload[1]) }
    guard payload.count == 14 else { throw .wrongLength(expected: 14, actual: payload.count) }
    let vbatt = payload.uint16BE(at: 2)
    batteryMillivolts = vbatt == 0 ? nil : vbatt
    let temp = payload.uint16BE(at: 4)
    temperature = temp == Self.temperatureUnsupported ? nil : Double(Int16(bitPattern: temp)) / 256
    advertisingCount = payload.uint32BE(at: 6)
    uptimeTenths = payload.uint32BE(at: 10)
  }

  public var adStructure: [UInt8] {
    var frame: [UInt8] = [0x20, 0x00]
    frame.appendBE(batteryMillivolts ?? 0)
    frame.appendBE(temperature.map { fixed88($0) } ?? Self.temperatureUnsupported)
    frame.appendBE(advertisingCount)
    frame.appendBE(uptimeTenths)
    return ADEncoder.serviceData16(BeaconConstants.eddystoneService, frame)
  }
}

/// A temperature (or humidity) in signed 8.8 fixed point, rounded and clamped to the int16 range.
func fixed88(_ value: Double) -> UInt16 {
  let scaled = (value * 256).rounded()
  return UInt16(bitPattern: Int16(max(-32768, min(32767, scaled))))
}
