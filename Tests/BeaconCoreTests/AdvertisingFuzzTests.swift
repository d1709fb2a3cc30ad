import Testing

@testable import BeaconCore

/// Random and mutated input never traps the parser or the frame decoders.
@Suite(.timeLimit(.minutes(1))) struct AdvertisingFuzzTests {
  /// xorshift64*, seeded, so a failure reproduces.
  struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state ^= state >> 12
      state ^= state << 25
      state ^= state >> 27
      return state &* 2_685_821_657_736_338_717
    }
  }

  /// Every payload a parsed element refers to lies inside the input (its slice indices are those of the
  /// input array), elements do not overlap and come in order, and the result encodes to JSON.
  static func checkInvariants(_ bytes: [UInt8], json: Bool = true) {
    let decoded = DecodedAdvertisement(bytes)
    var previousEnd = 0
    var inside = true
    for element in decoded.elements {
      let slices: [RawBytes] =
        switch element {
        case .flags, .localName, .txPowerLevel: []
        case .serviceUUIDs(let list): [list.raw]
        case .serviceData(let data): [data.rawUUID, data.payload]
        case .manufacturerData(_, let payload), .unknown(_, let payload), .malformed(_, let payload, _): [payload]
        }
      for raw in slices {
        inside = inside && raw.slice.startIndex >= previousEnd && raw.slice.endIndex <= bytes.count
        previousEnd = max(previousEnd, raw.slice.endIndex)
      }
    }
    // One expectation per input (Swift Testing's expectations are costly in a loop of thousands).
    let encodes = !json || (try? JSONRoundTrip.encode(decoded)) != nil
    if !inside || !encodes { Issue.record("input \(Hex.encode(bytes)): payloads inside \(inside), JSON \(encodes)") }
  }

  @Test func randomBytesNeverCrash() {
    var rng = Generator(state: 0x9E37_79B9_7F4A_7C15)
    for i in 0..<5_000 {
      let count = Int.random(in: 0...40, using: &rng)
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
      Self.checkInvariants(bytes, json: i % 10 == 0)
    }
  }

  @Test func randomWellFramedStructuresNeverCrash() {
    // Structures with plausible lengths and the interesting types, so the frame decoders get exercised.
    var rng = Generator(state: 42)
    let types: [UInt8] = [0x01, 0x02, 0x03, 0x07, 0x08, 0x09, 0x0A, 0x16, 0x20, 0x21, 0xFF]
    let heads: [[UInt8]] = [
      [0xAA, 0xFE, 0x00], [0xAA, 0xFE, 0x10], [0xAA, 0xFE, 0x20, 0x00], [0xAA, 0xFE, 0x30], [0xAA, 0xFE, 0x21],
      [0xAA, 0xFE, 0x22], [0x80, 0x20], [0x4C, 0x00, 0x02, 0x15], [0x53, 0x0A, 0x21], [0x53, 0x0A, 0x22],
    ]
    for i in 0..<5_000 {
      var bytes: [UInt8] = []
      while bytes.count < 31 {
        let type = types.randomElement(using: &rng)!
        var body = Bool.random(using: &rng) ? heads.randomElement(using: &rng)! : []
        body += (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes += [UInt8(min(255, body.count + 1)), type] + body
      }
      if Bool.random(using: &rng) { bytes.removeLast(Int.random(in: 0...bytes.count, using: &rng)) }
      Self.checkInvariants(bytes, json: i % 10 == 0)
    }
  }

  @Test func everyTruncationOfValidVectorsIsHandled() {
    let vectors = [
      "0201061AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001C5",
      "0303AAFE1716AAFE00EEEDD1EBEAC04E5DEFA0170000000000010000",
      "0303AAFE1116AAFE20000BB8FF800000006400000E10",
      "0303AAFE1216AAFE21010F0E07192A224FFFFCFFEC03EB",
      "0EFF530A220C5FDD340206D101050B",
      "0D094B4250726F5F323134383130" + "091680206D0100000000",
    ]
    for hex in vectors {
      guard let bytes = Hex.decode(hex) else {
        Issue.record("bad vector \(hex)")
        continue
      }
      for n in 0...bytes.count { Self.checkInvariants(Array(bytes.prefix(n))) }
      // A length octet bumped by one everywhere.
      for i in bytes.indices {
        var mutated = bytes
        mutated[i] &+= 1
        Self.checkInvariants(mutated)
      }
    }
  }
}
