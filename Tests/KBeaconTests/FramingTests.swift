import Testing

@testable import KBeacon

/// docs/protocols/kbeacon.md §4: header nibbles, request frames, device acks, report fragments and report acks.
@Suite(.timeLimit(.minutes(1))) struct FramingTests {
  @Test func headerNibblesFollowTheSpecTable() throws {
    // 0x13 = data type 1 (auth) << 4 | 3 (SINGLE)
    #expect(try FrameHeader(byte: 0x13) == FrameHeader(.auth, .single))
    // 0x20 = JSON request START, 0x21 MIDDLE, 0x22 END
    #expect(try FrameHeader(byte: 0x20) == FrameHeader(.json, .start))
    #expect(try FrameHeader(byte: 0x21) == FrameHeader(.json, .middle))
    #expect(try FrameHeader(byte: 0x22) == FrameHeader(.json, .end))
    // 0x53 = HEX report (5) SINGLE
    #expect(FrameHeader(.hexReport, .single).byte == 0x53)
    // data type 4 and position 4 do not exist
    #expect(throws: KBeaconError.self) { try FrameHeader(byte: 0x43) }
    #expect(throws: KBeaconError.self) { try FrameHeader(byte: 0x24) }
  }

  @Test func payloadBudgetIs17BytesBeforeAuthAndFollowsTheSmallerMTU() {
    #expect(FrameBudget.payloadBytes(attMTU: FrameBudget.defaultATTMTU) == 17)
    #expect(FrameBudget.payloadBytes(linkMTU: 247, reportedMTU: 251) == 241)
    #expect(FrameBudget.payloadBytes(linkMTU: 23, reportedMTU: 251) == 17)
  }

  @Test func shortJSONRequestIsOneSingleFrameAtOffsetZero() throws {
    let message = utf8(#"{"msg":"ring"}"#)  // 14 bytes ≤ 17
    let frames = RequestFrame.fragments(of: message, dataType: .json, budget: 17)
    #expect(frames.count == 1)
    // 23 = JSON SINGLE, 00 00 = offset 0, then the JSON text
    #expect(frames[0].bytes == hex("23 0000") + message)
    #expect(try RequestFrame(bytes: frames[0].bytes) == frames[0])
  }

  @Test func longRequestSplitsIntoStartMiddleEndWithByteOffsets() throws {
    let message = utf8(#"{"msg":"getPara","type":3}"#)  // 26 bytes, budget 10 → 10 + 10 + 6
    let frames = RequestFrame.fragments(of: message, dataType: .json, budget: 10)
    // 20 0000 = START at 0; 21 000A = MIDDLE at 10; 22 0014 = END at 20
    #expect(frames.map { Array($0.bytes.prefix(3)) } == [hex("20 0000"), hex("21 000A"), hex("22 0014")])
    #expect(frames.flatMap(\.payload) == message)
    #expect(RequestFrame.fragment(of: message, dataType: .json, from: 10, budget: 10) == frames[1])
    #expect(RequestFrame.fragment(of: message, dataType: .json, from: 26, budget: 10) == nil)
  }

  @Test func deviceAckDecodesSeqWindowCauseAndInlinePayload() throws {
    // 23 = JSON ack (type 2, SINGLE), seq 0011 = 17, window 0000,
    // cause 0004 EXPECT_NEXT
    let next = try DeviceAck(bytes: hex("23 0011 0000 0004"))
    #expect(next.seq == 17 && next.window == 0 && next.cause == .expectNext && next.payload.isEmpty)
    // 23 0000 0000 0000 7B7D = success carrying the response "{}"
    let short = try DeviceAck(bytes: hex("23 0000 0000 0000 7B7D"))
    #expect(short.cause == .success && short.payload == utf8("{}"))
    // 03 … 0103 = HEX ack with cause 0x103 (input parameter invalid)
    #expect(try DeviceAck(bytes: hex("03 0000 0000 0103")).cause == .invalidParameter)
    // a 5-byte ack misses half its cause field
    #expect(throws: KBeaconError.self) { try DeviceAck(bytes: hex("23 0000 0000 01")) }
    #expect(DeviceAck(dataType: .json, seq: 17, cause: .expectNext).bytes == hex("23 0011 0000 0004"))
  }

  @Test func reportFragmentsAndTheAppsSevenByteAck() throws {
    // 30 0000 … = JSON report START at 0; 32 0004 … = END at 4
    let start = try ReportFragment(bytes: hex("30 0000") + utf8("{\"a\""))
    #expect(
      start.dataType == .jsonReport && start.position == .start && start.offset == 0 && start.data == utf8("{\"a\""))
    // the spec's example ack: 33 LL LL 03E8 0000 — JSON report ack, 16 bytes held, window 1000, cause OK
    #expect(ReportAck(dataType: .jsonReport, receivedLength: 16).bytes == hex("33 0010 03E8 0000"))
    // 53 = HEX report ack; cause 1 = sequence error
    let nack = ReportAck(dataType: .hexReport, receivedLength: 4, errorCause: ReportAck.causeSequenceError)
    #expect(nack.bytes == hex("53 0004 03E8 0001"))
    #expect(try ReportAck(bytes: nack.bytes) == nack)
    let pieces = ReportFragment.fragments(of: Array(0..<20), dataType: .hexReport, budget: 8)
    // 50 0000 (8 bytes), 51 0008 (8 bytes), 52 0010 (4 bytes)
    #expect(pieces.map { Array($0.bytes.prefix(3)) } == [hex("50 0000"), hex("51 0008"), hex("52 0010")])
  }

  @Test func reportAssemblerRejectsGapsAndOverflow() throws {
    var assembler = ReportAssembler(capacity: 8)
    #expect(try assembler.take(position: .start, offset: 0, data: [1, 2, 3]) == .partial(held: 3))
    #expect(throws: KBeaconError.self) { try assembler.take(position: .middle, offset: 4, data: [4]) }
    var small = ReportAssembler(capacity: 4)
    _ = try small.take(position: .start, offset: 0, data: [1, 2, 3])
    #expect(throws: KBeaconError.self) { try small.take(position: .end, offset: 3, data: [4, 5]) }
  }
}
