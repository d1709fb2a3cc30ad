/// Eddystone-EID (docs/protocols/beacon-formats.md §2, frame type 0x30): `30 txAt0m[s8] EID[8]`. Recognised only; the
/// ephemeral identifier is opaque without the beacon's identity key.
public struct EddystoneEIDFrame: Sendable, Hashable, Codable {
  public var txPowerAt0m: Int8
  /// The 8-byte ephemeral identifier.
  public var ephemeralID: RawBytes

  public init(txPowerAt0m: Int8, ephemeralID: [UInt8]) {
    self.txPowerAt0m = txPowerAt0m
    self.ephemeralID = RawBytes(ephemeralID)
  }

  public init(payload: RawBytes) throws(FrameDecodingError) {
    try FrameDecodingError.require(payload, 10)
    txPowerAt0m = payload.int8(at: 1)
    ephemeralID = payload.bytes(2..<10)
  }

  public var adStructure: [UInt8] {
    ADEncoder.serviceData16(
      BeaconConstants.eddystoneService, [0x30, UInt8(bitPattern: txPowerAt0m)] + ephemeralID.array)
  }
}
