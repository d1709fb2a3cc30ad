import Testing

@testable import BeaconCore

/// The JSON shape of decoded frames: camelCase, `type` discriminator, hex bytes, upper-case UUIDs.
@Suite(.timeLimit(.minutes(1))) struct BeaconFrameJSONTests {
  @Test func iBeaconShape() throws {
    let frame = BeaconFrame.iBeacon(
      IBeaconFrame(uuid: ProximityUUID("e2c56db5-dffb-48d2-b060-d0f5a71096e0")!, major: 7, minor: 1, measuredPower: -59)
    )
    let json = try JSONRoundTrip.encode(frame)
    #expect(
      json
        == #"{"major":7,"measuredPower":-59,"minor":1,"type":"iBeacon","uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"}"#)
    #expect(try JSONRoundTrip.decode(BeaconFrame.self, json) == frame)
  }

  @Test func everyFrameKindRoundTrips() throws {
    let hexes = [
      "1216AAFE21010F0E07192A224FFFFCFFEC03EB", "1716AAFE00EEEDD1EBEAC04E5DEFA0170000000000010000",
      "1316AAFE10EB03676F6F2E676C2F53367A543650", "1116AAFE20000BB8F3800000000100000001",
      "0D16AAFE30E70102030405060708",
      "0EFF530A220C5FDD340206D101050B", "091680206D0100000000", "0A16AAFE00EE0102030405",
    ]
    var kinds: Set<FrameKind> = []
    for hex in hexes {
      let frame = try #require(DecodedAdvertisement(Hex.decode(hex)!).frames.first, "\(hex)")
      kinds.insert(frame.kind)
      let json = try JSONRoundTrip.encode(frame)
      #expect(try JSONRoundTrip.decode(BeaconFrame.self, json) == frame, "\(json)")
    }
    #expect(kinds == Set(FrameKind.allCases.filter { $0 != .iBeacon }))
  }

  @Test func rawBytesAndMalformedShape() throws {
    let uid = try #require(
      DecodedAdvertisement(Hex.decode("1716AAFE00EEEDD1EBEAC04E5DEFA0170000000000010000")!).frames.first)
    #expect(
      try JSONRoundTrip.encode(uid)
        == #"{"instance":"000000000001","namespace":"EDD1EBEAC04E5DEFA017","txPowerAt0m":-18,"type":"eddystoneUID"}"#)
    let bad = try #require(DecodedAdvertisement(Hex.decode("0A16AAFE00EE0102030405")!).frames.first)
    let json = try JSONRoundTrip.encode(bad)
    #expect(
      json.contains(#""malformed":true"#) && json.contains(#""type":"eddystoneUID""#)
        && json.contains(#""bytes":"00EE0102030405""#))
    #expect(json.contains(#""message":"truncated: 18 bytes needed, 7 present""#))
  }
}
