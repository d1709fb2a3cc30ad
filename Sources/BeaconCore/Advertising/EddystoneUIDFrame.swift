/// Eddystone-UID (docs/protocols/beacon-formats.md §2 "UID"): `00 txAt0m[s8] namespace[10] instance[6] RFU[2]`. The
/// service data AD length is 0x17; legacy senders omit the two RFU bytes (length 0x15) — both decode.
/// Longer payloads are accepted and the extra bytes ignored (docs/protocols/kbeacon.md §10.7: "≥18 B").
public struct EddystoneUIDFrame: Sendable, Hashable, Codable {
  /// Calibrated Tx power at 0 m, dBm.
  public var txPowerAt0m: Int8
  /// 10 bytes.
  public var namespace: RawBytes
  /// 6 bytes.
  public var instance: RawBytes

  public init(txPowerAt0m: Int8, namespace: [UInt8], instance: [UInt8]) {
    self.txPowerAt0m = txPowerAt0m
    self.namespace = RawBytes(namespace)
    self.instance = RawBytes(instance)
  }

  /// `payload` is the service data after the `AA FE` UUID, starting at the frame type 0x00.
  public init(payload: RawBytes) throws(FrameDecodingError) {
    try FrameDecodingError.require(payload, 18)
    txPowerAt0m = payload.int8(at: 1)
    namespace = payload.bytes(2..<12)
    instance = payload.bytes(12..<18)
  }

  /// The service data AD structure, with the RFU bytes (length 0x17) unless `legacy`.
  public func adStructure(legacy: Bool = false) -> [UInt8] {
    let frame: [UInt8] =
      [0x00, UInt8(bitPattern: txPowerAt0m)] + namespace.array + instance.array + (legacy ? [] : [0, 0])
    return ADEncoder.serviceData16(BeaconConstants.eddystoneService, frame)
  }
}
