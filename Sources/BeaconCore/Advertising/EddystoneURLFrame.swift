/// Eddystone-URL (docs/protocols/beacon-formats.md §2 "URL"): `10 txAt0m[s8] scheme[1] encodedURL[1–17]`. The decoded
/// `url` is the expanded text; an empty encoded part is accepted (older spec revisions allowed 0–17).
public struct EddystoneURLFrame: Sendable, Hashable, Codable {
  public var txPowerAt0m: Int8
  public var url: String

  public init(txPowerAt0m: Int8, url: String) {
    self.txPowerAt0m = txPowerAt0m
    self.url = url
  }

  public init(payload: RawBytes) throws(FrameDecodingError) {
    try FrameDecodingError.require(payload, 3)
    txPowerAt0m = payload.int8(at: 1)
    url = try EddystoneURLCodec.decode(scheme: payload[2], body: payload.dropping(3))
  }

  /// The service data AD structure; throws when `url` cannot be encoded.
  public func adStructure() throws(EddystoneURLEncodingError) -> [UInt8] {
    let (scheme, body) = try EddystoneURLCodec.encode(url)
    return ADEncoder.serviceData16(
      BeaconConstants.eddystoneService, [0x10, UInt8(bitPattern: txPowerAt0m), scheme] + body)
  }
}
