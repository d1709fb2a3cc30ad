/// KKM System frame 0x22 (kbeacon-protocol.md §10.4), as KKM manufacturer data or Eddystone service data:
/// `[22][model u8][battery % u8][MAC 6, printed order][fw major][fw minor]` (at least 11 bytes; extra bytes
/// are ignored).
public struct KKMSystemFrame: Sendable, Hashable, Codable {
  /// KKM model code.
  public var model: UInt8
  public var batteryPercent: UInt8
  /// The device's MAC as it advertises it (useful where the OS hides addresses).
  public var macAddress: BluetoothAddress
  public var firmwareMajor: UInt8
  public var firmwareMinor: UInt8

  public init(model: UInt8, batteryPercent: UInt8, macAddress: BluetoothAddress, firmwareMajor: UInt8, firmwareMinor: UInt8) {
    self.model = model
    self.batteryPercent = batteryPercent
    self.macAddress = macAddress
    self.firmwareMajor = firmwareMajor
    self.firmwareMinor = firmwareMinor
  }

  /// "major.minor".
  public var firmwareVersion: String { "\(firmwareMajor).\(firmwareMinor)" }

  /// `payload` starts at the frame type 0x22.
  public init(payload: RawBytes) throws(FrameDecodingError) {
    try FrameDecodingError.require(payload, 11)
    model = payload[1]
    batteryPercent = payload[2]
    var mac: UInt64 = 0
    for i in 3..<9 { mac = mac << 8 | UInt64(payload[i]) }
    macAddress = BluetoothAddress(rawValue: mac)
    firmwareMajor = payload[9]
    firmwareMinor = payload[10]
  }

  public var frameBytes: [UInt8] { [0x22, model, batteryPercent] + macAddress.bytes + [firmwareMajor, firmwareMinor] }

  /// As KKM manufacturer data (`53 0A 22 …`).
  public var manufacturerADStructure: [UInt8] { ADEncoder.manufacturerData(BeaconConstants.kkmCompanyID, frameBytes) }
}

/// KKM 0x2080 service data, sent in the scan response (kbeacon-protocol.md §10.2):
/// - byte 0: battery %, clamped to 100, trusted only when the data is longer than 2 bytes;
/// - byte 1: advertising flags (v1 numbering [I]: 0x04 = iBeacon is advertised);
/// - if `byte1 & 0x04`: bytes 2–3 iBeacon major, 4–5 minor (big-endian [I], as iBeacon);
/// - if byte1 == 0, byte2 == 1 and length ≥ 6: bytes 3–5 are the low three bytes of the MAC.
/// Real K6 sample: `6D 01 00 00 00 00` → battery 100 % (0x6D = 109 clamped), flags 0x01.
public struct KKMScanResponseFrame: Sendable, Hashable, Codable {
  public var batteryPercent: UInt8?
  public var advertisingFlags: UInt8?
  public var iBeaconMajor: UInt16?
  public var iBeaconMinor: UInt16?
  /// The low three MAC bytes (printed order) when the `00 01` marker is present.
  public var macSuffix: RawBytes?
  /// The service data after `80 20`, as received.
  public var raw: RawBytes

  public init(payload: RawBytes) {
    raw = payload
    if payload.count > 2 { batteryPercent = min(payload[0], 100) }
    if payload.count > 1 { advertisingFlags = payload[1] }
    if payload.count >= 6, payload[1] & 0x04 != 0 {
      iBeaconMajor = payload.uint16BE(at: 2)
      iBeaconMinor = payload.uint16BE(at: 4)
    } else if payload.count >= 6, payload[1] == 0, payload[2] == 1 {
      macSuffix = payload.bytes(3..<6)
    }
  }

  /// The scan response service data structure for these exact bytes.
  public static func adStructure(_ payload: [UInt8]) -> [UInt8] {
    ADEncoder.serviceData16(BeaconConstants.kkmScanResponseService, payload)
  }
}
