import Testing

@testable import NordicDFU

/// SLIP vectors (docs/protocols/nordic-dfu.md §4: 0xC0 → DB DC, 0xDB → DB DD, one END after each frame, no leading END).
@Suite(.timeLimit(.minutes(2))) struct SLIPTests {
  @Test func encodesWithEscapesAndATrailingEnd() {
    // 09 01 → 09 01 C0
    #expect(SLIP.encode([0x09, 0x01]) == [0x09, 0x01, 0xC0])
    // 08 C0 DB 00 → 08 | DB DC | DB DD | 00 | C0
    #expect(SLIP.encode([0x08, 0xC0, 0xDB, 0x00]) == [0x08, 0xDB, 0xDC, 0xDB, 0xDD, 0x00, 0xC0])
    // empty payload is just END
    #expect(SLIP.encode([]) == [0xC0])
  }

  @Test func decodesFramesSplitAcrossReads() {
    var d = SLIPDecoder()
    // "60 09 01 05" then "60 07 01 83 00" arriving in three pieces, the escape split across reads
    #expect(d.feed([0x60, 0x09]) == [])
    #expect(d.feed([0x01, 0x05, 0xC0, 0x60, 0xDB]) == [.frame([0x60, 0x09, 0x01, 0x05])])
    #expect(d.feed([0xDC, 0x01, 0xC0]) == [.frame([0x60, 0xC0, 0x01])])
  }

  @Test func skipsEmptyFramesAndReportsBadEscapes() {
    var d = SLIPDecoder()
    // leading END (empty frame) ignored; DB 41 is an invalid escape → invalid frame; next frame fine
    #expect(d.feed([0xC0, 0x01, 0xDB, 0x41, 0x02, 0xC0, 0x03, 0xC0]) == [.invalidFrame, .frame([0x03])])
  }

  @Test func dropsOversizedFrames() {
    var d = SLIPDecoder(maximumFrameSize: 4)
    #expect(d.feed([1, 2, 3, 4, 5, 0xC0, 6, 0xC0]) == [.invalidFrame, .frame([6])])
  }

  @Test func roundTripsEveryByteValue() {
    let payload = (0...255).map(UInt8.init)
    var d = SLIPDecoder()
    #expect(d.feed(SLIP.encode(payload)) == [.frame(payload)])
  }

  @Test func serialWriteSizeFollowsTheMTU() {
    // MTU 131 = 2·(64+1)+1 → 64 data bytes per 08 frame; the worst-case frame (all bytes escaped) fits
    #expect(SerialDFUFraming.dataBytesPerWrite(mtu: 131) == 64)
    let worst = SLIP.encode([0x08] + [UInt8](repeating: 0xC0, count: 64))
    #expect(worst.count <= 131)
  }
}
