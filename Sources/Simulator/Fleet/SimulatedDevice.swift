import BeaconCore

/// One device entry of a fleet file: identity, radio behaviour, and optional sections saying what it
/// advertises. Every frame section present is advertised, one frame per advertising PDU in turn (as a
/// multi-slot KBeacon does). Keys not listed in `CodingKeys` are rejected.
public struct SimulatedDevice: Sendable, Hashable, Codable {
  /// What the device is; decides defaults (scan response contents, KSensor version byte).
  public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
    /// KKM KBeacon Pro (v2 firmware): KSensor/System frames, 0x2080 scan response with the MAC marker.
    case kbeaconPro
    /// Legacy KKM KBeacon (v1 firmware): KSensor with version byte 1, 0x2080 with iBeacon major/minor.
    case kbeaconLegacy
    /// A plain iBeacon.
    case iBeacon
    /// A plain Eddystone beacon (UID/URL/TLM/EID).
    case eddystone
    /// A Tertium-style text-stream reader (`SimulatedReaderCommands`); advertises its service UUID.
    case tertiumReader
    /// An AT-command device on the Nordic UART Service (`SimulatedATCommands`); advertises the NUS UUID.
    case nordicUART
  }

  public var address: BluetoothAddress
  /// Default `public`.
  public var addressType: AddressType
  public var kind: Kind
  /// Sent as the complete local name in the scan response.
  public var name: String?
  /// Default: true for KBeacons, false for plain iBeacon/Eddystone.
  public var connectable: Bool
  /// Advertising interval in ms (20…10240; default 1000). Each PDU is delayed a further 0–10 ms (advDelay).
  public var intervalMs: Int
  public var rssi: RSSIProfile
  public var iBeacon: IBeaconSection?
  public var eddystoneUID: EddystoneUIDSection?
  public var eddystoneURL: EddystoneURLSection?
  public var eddystoneTLM: EddystoneTLMSection?
  public var sensor: SensorSection?
  public var system: SystemSection?
  /// Exact 0x2080 service data (hex) to send instead of the one derived from the kind.
  public var kkmScanResponse: RawBytes?
  /// Advertising PDUs sent verbatim, one slot each after the frame sections' (hex, any length, any framing:
  /// a length byte running past the end, a zero length, a truncated frame, control bytes in a name). For
  /// hostile-input tests: nothing checks them, as nothing checks what a stranger's device sends.
  public var rawAdvertising: [RawBytes]?
  /// KBeacon kinds: password, starting settings and history of the simulated configuration service
  /// (`KBeaconSection`, owned by the KBeacon simulator).
  public var kbeacon: KBeaconSection?
  /// KBeacon kinds: the Secure DFU bootloader's facts and faults (`DFUSection`, docs/protocols/nordic-dfu.md §2).
  public var dfu: DFUSection?
  /// Text-stream kinds: answer timing, faults and starting settings (`TextStreamSection`).
  public var textStream: TextStreamSection?
  /// When it is on the air (`PresenceWindow`); nil: always.
  public var presence: [PresenceWindow]?

  public init(
    address: BluetoothAddress, addressType: AddressType = .public, kind: Kind, name: String? = nil,
    connectable: Bool? = nil, intervalMs: Int = 1000, rssi: RSSIProfile = RSSIProfile(),
    iBeacon: IBeaconSection? = nil, eddystoneUID: EddystoneUIDSection? = nil, eddystoneURL: EddystoneURLSection? = nil,
    eddystoneTLM: EddystoneTLMSection? = nil, sensor: SensorSection? = nil, system: SystemSection? = nil,
    kkmScanResponse: RawBytes? = nil, rawAdvertising: [RawBytes]? = nil, kbeacon: KBeaconSection? = nil,
    dfu: DFUSection? = nil, textStream: TextStreamSection? = nil, presence: [PresenceWindow]? = nil
  ) {
    self.dfu = dfu
    self.textStream = textStream
    self.presence = presence
    self.address = address
    self.addressType = addressType
    self.kind = kind
    self.name = name
    self.connectable = connectable ?? (kind.isKBeacon || kind.isTextStream)
    self.intervalMs = intervalMs
    self.rssi = rssi
    self.iBeacon = iBeacon
    self.eddystoneUID = eddystoneUID
    self.eddystoneURL = eddystoneURL
    self.eddystoneTLM = eddystoneTLM
    self.sensor = sensor
    self.system = system
    self.kkmScanResponse = kkmScanResponse
    self.rawAdvertising = rawAdvertising
    self.kbeacon = kbeacon
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case address, addressType, kind, name, connectable, intervalMs, rssi
    case iBeacon, eddystoneUID, eddystoneURL, eddystoneTLM, sensor, system, kkmScanResponse, rawAdvertising, kbeacon,
      dfu, textStream, presence
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let kindText = try c.decode(String.self, forKey: .kind)
    guard let kind = Kind(rawValue: kindText) else {
      throw invalidValue(
        decoder, CodingKeys.kind,
        "'\(kindText)' is not a device kind (\(Kind.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    self.init(
      address: try c.decode(BluetoothAddress.self, forKey: .address),
      addressType: try Self.decodeAddressType(c, decoder),
      kind: kind, name: try c.decodeIfPresent(String.self, forKey: .name),
      connectable: try c.decodeIfPresent(Bool.self, forKey: .connectable),
      intervalMs: try c.decodeIfPresent(Int.self, forKey: .intervalMs) ?? 1000,
      rssi: try c.decodeIfPresent(RSSIProfile.self, forKey: .rssi) ?? RSSIProfile(),
      iBeacon: try c.decodeIfPresent(IBeaconSection.self, forKey: .iBeacon),
      eddystoneUID: try c.decodeIfPresent(EddystoneUIDSection.self, forKey: .eddystoneUID),
      eddystoneURL: try c.decodeIfPresent(EddystoneURLSection.self, forKey: .eddystoneURL),
      eddystoneTLM: try c.decodeIfPresent(EddystoneTLMSection.self, forKey: .eddystoneTLM),
      sensor: try c.decodeIfPresent(SensorSection.self, forKey: .sensor),
      system: try c.decodeIfPresent(SystemSection.self, forKey: .system),
      kkmScanResponse: try c.decodeIfPresent(RawBytes.self, forKey: .kkmScanResponse),
      rawAdvertising: try c.decodeIfPresent([RawBytes].self, forKey: .rawAdvertising),
      kbeacon: try c.decodeIfPresent(KBeaconSection.self, forKey: .kbeacon),
      dfu: try c.decodeIfPresent(DFUSection.self, forKey: .dfu),
      textStream: try c.decodeIfPresent(TextStreamSection.self, forKey: .textStream),
      presence: try c.decodeIfPresent([PresenceWindow].self, forKey: .presence))
    guard (20...10240).contains(intervalMs) else {
      throw invalidValue(decoder, CodingKeys.intervalMs, "\(intervalMs) ms is outside 20…10240")
    }
    if let name, name.utf8.count > 29 {
      throw invalidValue(
        decoder, CodingKeys.name, "name of \(name.utf8.count) bytes does not fit a scan response (29 at most)")
    }
    if textStream != nil, !kind.isTextStream {
      throw invalidValue(
        decoder, CodingKeys.textStream, "only tertiumReader and nordicUART devices have a textStream section")
    }
    if kind == .nordicUART, let profile = textStream?.profile, profile != "nordic-uart" {
      throw invalidValue(
        decoder, CodingKeys.textStream, "a nordicUART device offers the nordic-uart profile, not \(profile)")
    }
    // A text-stream device advertises its service UUID (and its name), with or without frames.
    guard advertises else {
      throw invalidValue(
        decoder, CodingKeys.kind,
        "device advertises nothing: add iBeacon, eddystoneUID, eddystoneURL, eddystoneTLM, sensor, system or rawAdvertising"
      )
    }
    // Each frame section is one of the KBeacon's starting slots (`startingConfiguration(over:)`).
    guard kind != .kbeaconPro || frameCount <= 5 else {
      throw invalidValue(
        decoder, CodingKeys.kind, "a KBeacon Pro has 5 advertising slots, not \(frameCount) frame sections")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(address, forKey: .address)
    try c.encode(addressType.description, forKey: .addressType)
    try c.encode(kind, forKey: .kind)
    try c.encodeIfPresent(name, forKey: .name)
    try c.encode(connectable, forKey: .connectable)
    try c.encode(intervalMs, forKey: .intervalMs)
    try c.encode(rssi, forKey: .rssi)
    try c.encodeIfPresent(iBeacon, forKey: .iBeacon)
    try c.encodeIfPresent(eddystoneUID, forKey: .eddystoneUID)
    try c.encodeIfPresent(eddystoneURL, forKey: .eddystoneURL)
    try c.encodeIfPresent(eddystoneTLM, forKey: .eddystoneTLM)
    try c.encodeIfPresent(sensor, forKey: .sensor)
    try c.encodeIfPresent(system, forKey: .system)
    try c.encodeIfPresent(kkmScanResponse, forKey: .kkmScanResponse)
    try c.encodeIfPresent(rawAdvertising, forKey: .rawAdvertising)
    try c.encodeIfPresent(kbeacon, forKey: .kbeacon)
    try c.encodeIfPresent(dfu, forKey: .dfu)
    try c.encodeIfPresent(textStream, forKey: .textStream)
    try c.encodeIfPresent(presence, forKey: .presence)
  }

  /// `"public"` (default) or `"random"`.
  private static func decodeAddressType(_ c: KeyedDecodingContainer<CodingKeys>, _ decoder: any Decoder) throws
    -> AddressType
  {
    switch try c.decodeIfPresent(String.self, forKey: .addressType) {
    case nil, "public"?: return .public
    case "random"?: return .random
    case let other?:
      throw invalidValue(decoder, CodingKeys.addressType, "'\(other)' is not an address type (public, random)")
    }
  }

  /// True when the device sends advertising PDUs: it has a frame section, or it is a text-stream device
  /// (which advertises its service UUID).
  public var advertises: Bool { hasFrames || kind.isTextStream || !(rawAdvertising ?? []).isEmpty }

  /// True when at least one frame section is present.
  public var hasFrames: Bool { frameCount > 0 }

  /// How many frame sections are present.
  public var frameCount: Int {
    [iBeacon != nil, eddystoneUID != nil, eddystoneURL != nil, eddystoneTLM != nil, sensor != nil, system != nil]
      .filter { $0 }.count
  }
}

extension SimulatedDevice.Kind {
  public var isKBeacon: Bool { self == .kbeaconPro || self == .kbeaconLegacy }
  /// A text-stream ("virtual serial") device, served by `TextDeviceSimulation`.
  public var isTextStream: Bool { self == .tertiumReader || self == .nordicUART }
}
