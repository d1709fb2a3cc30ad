import Testing

@testable import BeaconCore

/// Eddystone-URL decoding and the encoder (docs/protocols/beacon-formats.md §2 "URL").
@Suite(.timeLimit(.minutes(1))) struct EddystoneURLTests {
  @Test func decodesTheVector() throws {
    // 03 03 AA FE | 13 16 AA FE | 10 = URL | EB = −21 dBm | 03 = "https://" | "goo.gl/S6zT6P" (13 ASCII bytes)
    let bytes = try vector("0303AAFE" + "1316AAFE" + "10" + "EB" + "03" + "676F6F2E676C2F53367A543650")
    guard case .eddystoneURL(let f)? = DecodedAdvertisement(bytes).frames.first else {
      Issue.record("not URL")
      return
    }
    #expect(f.url == "https://goo.gl/S6zT6P" && f.txPowerAt0m == -21)
    #expect(Hex.encode(try f.adStructure()) == "1316AAFE10EB03676F6F2E676C2F53367A543650")
  }

  @Test func everySchemePrefix() throws {
    // "x.com" after each prefix encodes to 78 07; the longest matching prefix wins (https://www. over https://).
    let cases: [(String, UInt8)] = [
      ("http://www.x.com", 0x00), ("https://www.x.com", 0x01), ("http://x.com", 0x02), ("https://x.com", 0x03),
    ]
    for (url, scheme) in cases {
      let encoded = try EddystoneURLCodec.encode(url)
      #expect(encoded.scheme == scheme && encoded.body == [0x78, 0x07], "\(url)")
      #expect(try EddystoneURLCodec.decode(scheme: scheme, body: RawBytes([0x78, 0x07])) == url)
    }
  }

  @Test func everyExpansionCode() throws {
    let texts = [
      ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/", ".com", ".org", ".edu", ".net", ".info", ".biz",
      ".gov",
    ]
    for (code, text) in texts.enumerated() {
      // "https://a" + expansion + "z": 61 <code> 7A.
      let url = "https://a" + text + "z"
      let encoded = try EddystoneURLCodec.encode(url)
      #expect(encoded.scheme == 0x03 && encoded.body == [0x61, UInt8(code), 0x7A], "\(url)")
      #expect(try EddystoneURLCodec.decode(scheme: 0x03, body: RawBytes(encoded.body)) == url)
    }
  }

  @Test func prefersTheSlashFormWhenASlashFollows() throws {
    // ".com/" (00) is chosen over ".com" (07) + "/"; ".company" uses ".com" (07) then "pany".
    #expect(try EddystoneURLCodec.encode("https://a.com/b").body == [0x61, 0x00, 0x62])
    #expect(try EddystoneURLCodec.encode("https://a.company").body == [0x61, 0x07] + Array("pany".utf8))
    #expect(
      try EddystoneURLCodec.encode("https://www.example.com/beacons").body == Array("example".utf8) + [0x00]
        + Array("beacons".utf8))
  }

  @Test func rejectsWhatCannotBeCarried() {
    // 17 bytes is the limit: "abcdefghijklmnopq" fits, one more does not.
    #expect((try? EddystoneURLCodec.encode("https://abcdefghijklmnopq"))?.body.count == 17)
    #expect(throws: EddystoneURLEncodingError.tooLong(encodedLength: 18)) {
      try EddystoneURLCodec.encode("https://abcdefghijklmnopqr")
    }
    #expect(throws: EddystoneURLEncodingError.invalidCharacter(offset: 9, byte: 0x20)) {
      try EddystoneURLCodec.encode("https://a b.com")
    }
    #expect(throws: EddystoneURLEncodingError.invalidCharacter(offset: 8, byte: 0xC3)) {
      try EddystoneURLCodec.encode("https://é.com")
    }
    #expect(throws: EddystoneURLEncodingError.invalidCharacter(offset: 9, byte: 0x09)) {
      try EddystoneURLCodec.encode("https://a\t")
    }
    #expect(throws: EddystoneURLEncodingError.unsupportedScheme("ftp://x.com")) {
      try EddystoneURLCodec.encode("ftp://x.com")
    }
    #expect(throws: EddystoneURLEncodingError.emptyURL) { try EddystoneURLCodec.encode("https://") }
    #expect(EddystoneURLEncodingError.tooLong(encodedLength: 18).description.contains("at most 17"))
  }

  @Test func decoderRejectsReservedValues() {
    #expect(throws: FrameDecodingError.reservedURLScheme(0x04)) {
      try EddystoneURLCodec.decode(scheme: 0x04, body: RawBytes([0x61]))
    }
    for byte: UInt8 in [0x0E, 0x20, 0x7F, 0xFF] {
      #expect(throws: FrameDecodingError.reservedURLByte(byte, offset: 1)) {
        try EddystoneURLCodec.decode(scheme: 0x02, body: RawBytes([0x61, byte]))
      }
    }
    #expect(throws: FrameDecodingError.urlTooLong(18)) {
      try EddystoneURLCodec.decode(scheme: 0x02, body: RawBytes(Array(repeating: 0x61, count: 18)))
    }
    // A URL frame of 2 bytes (10 EB, no scheme) is truncated.
    guard case .malformed(let m)? = DecodedAdvertisement(Hex.decode("0516AAFE10EB")!).frames.first else {
      Issue.record("decoded")
      return
    }
    #expect(m.error == .truncated(needed: 3, available: 2))
  }
}
