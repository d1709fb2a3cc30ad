import Testing

@testable import BeaconCore

/// iBeacon (docs/protocols/beacon-formats.md §1).
@Suite(.timeLimit(.minutes(1))) struct IBeaconFrameTests {
  /// 02 01 06                      flags: LE General Discoverable, BR/EDR not supported
  /// 1A FF                         AD length 26, manufacturer specific data
  /// 4C 00                         company 0x004C (Apple), little-endian
  /// 02 15                         iBeacon type, 21 bytes follow
  /// E2C56DB5DFFB48D2B060D0F5A71096E0  proximity UUID
  /// 00 07                         major 7 (big-endian)
  /// 00 01                         minor 1
  /// C5                            measured power −59 dBm
  static let sample = "0201061AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001C5"

  @Test func decodesTheVector() throws {
    let decoded = DecodedAdvertisement(try vector(Self.sample))
    #expect(decoded.frames.count == 1)
    guard case .iBeacon(let f) = try #require(decoded.frames.first) else {
      Issue.record("not an iBeacon")
      return
    }
    #expect(f.uuid.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
    #expect(f.major == 7 && f.minor == 1 && f.measuredPower == -59)
  }

  @Test func doesNotRequireFlags() throws {
    // The same manufacturer AD alone (as in a scan response): 1A FF 4C 00 02 15 … ; major 0xFFFF, minor 0x8000,
    // power 0x00 = 0 dBm.
    let bytes = try vector("1AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E0FFFF800000")
    guard case .iBeacon(let f)? = DecodedAdvertisement(bytes).frames.first else {
      Issue.record("not decoded")
      return
    }
    #expect(f.major == 0xFFFF && f.minor == 0x8000 && f.measuredPower == 0)
  }

  @Test func wrongADLengthIsAMalformedIBeacon() throws {
    // 19 FF 4C 00 02 15 <UUID> 00 07 00 01 — measured power missing, AD length 0x19 instead of 0x1A.
    let bytes = try vector("19FF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001")
    let frames = DecodedAdvertisement(bytes).frames
    #expect(
      frames == [
        BeaconFrame.malformed(
          MalformedFrame(
            frame: .iBeacon, error: .wrongLength(expected: 26, actual: 25), bytes: RawBytes(Array(bytes[4...]))))
      ])
  }

  @Test func otherAppleDataIsNotABeacon() throws {
    // 07 FF 4C 00 10 02 0B 00: an Apple "nearby" message (type 0x10), no frame.
    #expect(DecodedAdvertisement(try vector("07FF4C0010020B00")).frames.isEmpty)
  }

  @Test func encoderWritesTheVector() throws {
    let frame = IBeaconFrame(
      uuid: try #require(ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")), major: 7, minor: 1, measuredPower: -59)
    #expect(Hex.encode(ADEncoder.flags() + frame.adStructure) == Self.sample)
  }
}
