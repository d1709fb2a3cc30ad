import BeaconCore

/// How strongly a device is received: a seeded random walk around `mean` dBm, staying within
/// `mean ± spread` (deterministic for a given seed; see `RSSIRandomWalk`).
public struct RSSIProfile: Sendable, Hashable, Codable {
  public var mean: Int
  public var spread: Int
  /// Seed of the walk; default derived from the device address.
  public var seed: UInt64?

  public init(mean: Int = -65, spread: Int = 6, seed: UInt64? = nil) {
    self.mean = mean
    self.spread = spread
    self.seed = seed
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case mean, spread, seed }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    mean = try c.decodeIfPresent(Int.self, forKey: .mean) ?? -65
    spread = try c.decodeIfPresent(Int.self, forKey: .spread) ?? 6
    seed = try c.decodeIfPresent(UInt64.self, forKey: .seed)
    guard (-127...20).contains(mean) else {
      throw invalidValue(decoder, CodingKeys.mean, "\(mean) dBm is outside -127…20")
    }
    guard (0...40).contains(spread) else {
      throw invalidValue(decoder, CodingKeys.spread, "\(spread) dB is outside 0…40")
    }
  }
}

/// An iBeacon slot (docs/protocols/beacon-formats.md §1).
public struct IBeaconSection: Sendable, Hashable, Codable {
  public var uuid: ProximityUUID
  public var major: UInt16
  public var minor: UInt16
  /// RSSI at 1 m, dBm; default −59.
  public var measuredPower: Int8

  public init(uuid: ProximityUUID, major: UInt16, minor: UInt16, measuredPower: Int8 = -59) {
    self.uuid = uuid
    self.major = major
    self.minor = minor
    self.measuredPower = measuredPower
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case uuid, major, minor, measuredPower }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      uuid: try c.decode(ProximityUUID.self, forKey: .uuid), major: try c.decodeInteger(UInt16.self, forKey: .major),
      minor: try c.decodeInteger(UInt16.self, forKey: .minor),
      measuredPower: try c.decodeIntegerIfPresent(Int8.self, forKey: .measuredPower) ?? -59)
  }

  public var frame: IBeaconFrame { IBeaconFrame(uuid: uuid, major: major, minor: minor, measuredPower: measuredPower) }
}

/// An Eddystone-UID slot: 10-byte namespace and 6-byte instance as hex.
public struct EddystoneUIDSection: Sendable, Hashable, Codable {
  public var namespace: RawBytes
  public var instance: RawBytes
  /// Default −20 dBm at 0 m.
  public var txPowerAt0m: Int8

  public init(namespace: [UInt8], instance: [UInt8], txPowerAt0m: Int8 = -20) {
    self.namespace = RawBytes(namespace)
    self.instance = RawBytes(instance)
    self.txPowerAt0m = txPowerAt0m
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case namespace, instance, txPowerAt0m }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    namespace = try c.decode(RawBytes.self, forKey: .namespace)
    instance = try c.decode(RawBytes.self, forKey: .instance)
    txPowerAt0m = try c.decodeIntegerIfPresent(Int8.self, forKey: .txPowerAt0m) ?? -20
    guard namespace.count == 10 else {
      throw invalidValue(decoder, CodingKeys.namespace, "namespace must be 10 bytes (20 hex digits)")
    }
    guard instance.count == 6 else {
      throw invalidValue(decoder, CodingKeys.instance, "instance must be 6 bytes (12 hex digits)")
    }
  }

  public var frame: EddystoneUIDFrame {
    EddystoneUIDFrame(txPowerAt0m: txPowerAt0m, namespace: namespace.array, instance: instance.array)
  }
}

/// An Eddystone-URL slot; the URL must be encodable (checked when the file is read).
public struct EddystoneURLSection: Sendable, Hashable, Codable {
  public var url: String
  public var txPowerAt0m: Int8

  public init(url: String, txPowerAt0m: Int8 = -20) {
    self.url = url
    self.txPowerAt0m = txPowerAt0m
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case url, txPowerAt0m }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    url = try c.decode(String.self, forKey: .url)
    txPowerAt0m = try c.decodeIntegerIfPresent(Int8.self, forKey: .txPowerAt0m) ?? -20
    do throws(EddystoneURLEncodingError) {
      _ = try EddystoneURLCodec.encode(url)
    } catch {
      throw invalidValue(decoder, CodingKeys.url, error.description)
    }
  }

  public var frame: EddystoneURLFrame { EddystoneURLFrame(txPowerAt0m: txPowerAt0m, url: url) }
}

/// An Eddystone-TLM slot. The counters are live (PDUs sent and time since the simulated boot).
public struct EddystoneTLMSection: Sendable, Hashable, Codable {
  /// nil: VBATT 0 (not supported).
  public var batteryMillivolts: UInt16?
  /// nil: 0x8000 (not supported).
  public var temperature: Double?
  /// Seconds the device has been up when the scan starts; default 3600.
  public var uptimeSeconds: Int?

  public init(batteryMillivolts: UInt16? = nil, temperature: Double? = nil, uptimeSeconds: Int? = nil) {
    self.batteryMillivolts = batteryMillivolts
    self.temperature = temperature
    self.uptimeSeconds = uptimeSeconds
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case batteryMillivolts, temperature, uptimeSeconds }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    batteryMillivolts = try c.decodeIntegerIfPresent(UInt16.self, forKey: .batteryMillivolts)
    temperature = try c.decodeIfPresent(Double.self, forKey: .temperature)
    uptimeSeconds = try c.decodeIfPresent(Int.self, forKey: .uptimeSeconds)
    if let t = temperature, !(-127.99...127.99).contains(t) {
      throw invalidValue(decoder, CodingKeys.temperature, "\(t) °C does not fit signed 8.8 (−127.99…127.99)")
    }
  }
}
