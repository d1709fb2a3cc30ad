import BeaconCore

/// A KSensor slot (docs/protocols/kbeacon.md §10.3): the readings the device reports. Present fields set the
/// mask. `carrier` chooses Eddystone service data (default, as KBeacon Pro) or KKM manufacturer data.
public struct SensorSection: Sendable, Hashable, Codable {
  public enum Carrier: String, Sendable, Hashable, Codable { case eddystone, manufacturer }

  public var batteryMillivolts: UInt16?
  public var temperature: Double?
  public var humidity: Double?
  /// `[x, y, z]` in mg.
  public var acceleration: [Int16]?
  public var lux: UInt16?
  public var co2ppm: UInt16?
  public var carrier: Carrier

  public init(
    batteryMillivolts: UInt16? = nil, temperature: Double? = nil, humidity: Double? = nil, acceleration: [Int16]? = nil,
    lux: UInt16? = nil, co2ppm: UInt16? = nil, carrier: Carrier = .eddystone
  ) {
    self.batteryMillivolts = batteryMillivolts
    self.temperature = temperature
    self.humidity = humidity
    self.acceleration = acceleration
    self.lux = lux
    self.co2ppm = co2ppm
    self.carrier = carrier
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case batteryMillivolts, temperature, humidity, acceleration, lux, co2ppm, carrier
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    batteryMillivolts = try c.decodeIntegerIfPresent(UInt16.self, forKey: .batteryMillivolts)
    temperature = try c.decodeIfPresent(Double.self, forKey: .temperature)
    humidity = try c.decodeIfPresent(Double.self, forKey: .humidity)
    acceleration = try c.decodeIfPresent([Int].self, forKey: .acceleration).map { values in
      guard values.allSatisfy({ Int16(exactly: $0) != nil }) else {
        throw invalidValue(decoder, CodingKeys.acceleration, "each axis must be within -32768…32767 mg")
      }
      return values.map { Int16($0) }
    }
    lux = try c.decodeIntegerIfPresent(UInt16.self, forKey: .lux)
    co2ppm = try c.decodeIntegerIfPresent(UInt16.self, forKey: .co2ppm)
    let carrierText = try c.decodeIfPresent(String.self, forKey: .carrier) ?? "eddystone"
    guard let carrier = Carrier(rawValue: carrierText) else {
      throw invalidValue(decoder, CodingKeys.carrier, "'\(carrierText)' is not a carrier (eddystone, manufacturer)")
    }
    self.carrier = carrier
    if let a = acceleration, a.count != 3 { throw invalidValue(decoder, CodingKeys.acceleration, "expected [x, y, z]") }
    if let t = temperature, !(-127.99...127.99).contains(t) {
      throw invalidValue(decoder, CodingKeys.temperature, "\(t) °C does not fit signed 8.8 (−127.99…127.99)")
    }
    if let h = humidity, !(0...100).contains(h) {
      throw invalidValue(decoder, CodingKeys.humidity, "\(h) % is outside 0…100")
    }
  }

  /// The frame; `legacy` sets the v1 version byte (mask bit 0x0100).
  public func frame(legacy: Bool) -> KSensorFrame {
    KSensorFrame(
      mask: legacy ? 0x0100 : 0, batteryMillivolts: batteryMillivolts, temperature: temperature, humidity: humidity,
      acceleration: acceleration.map { KSensorFrame.Acceleration(x: $0[0], y: $0[1], z: $0[2]) }, lux: lux,
      co2: co2ppm.map { KSensorFrame.CO2Reading(ageTens: 0, ppm: $0) })
  }
}
