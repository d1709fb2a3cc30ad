/// KKM 0x2080 service data, sent in the scan response (docs/protocols/kbeacon.md §10.2):
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
