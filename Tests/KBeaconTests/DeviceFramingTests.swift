import Testing

@testable import KBeacon

/// Device-side framing pieces (docs/protocols/kbeacon.md §4.2–§4.4) used by the simulated KBeacon.
@Suite(.timeLimit(.minutes(1))) struct DeviceFramingTests {
  @Test func requestAssemblerAsksForEachNextOffset() throws {
    var assembler = RequestAssembler()
    // 20 0000 "abc" → ack 23 0003 0000 0004 (next from 3)
    #expect(
      assembler.take(try RequestFrame(bytes: hex("20 0000 616263")))
        == .askForNext(DeviceAck(dataType: .json, seq: 3, cause: .expectNext)))
    #expect(assembler.isCollecting)
    // 21 0003 "de" → next from 5
    #expect(
      assembler.take(try RequestFrame(bytes: hex("21 0003 6465")))
        == .askForNext(DeviceAck(dataType: .json, seq: 5, cause: .expectNext)))
    // 22 0005 "f" → complete "abcdef"
    #expect(
      assembler.take(try RequestFrame(bytes: hex("22 0005 66"))) == .complete(dataType: .json, message: utf8("abcdef")))
    #expect(!assembler.isCollecting)
    // MIDDLE with no START, or at a wrong offset → rejected with 0x107
    #expect(
      assembler.take(try RequestFrame(bytes: hex("21 0003 64")))
        == .reject(DeviceAck(dataType: .json, seq: 3, cause: .executionFailed)))
  }

  @Test func reportSenderWaitsForEachAck() {
    var sender = ReportSender(message: Array(0..<10), dataType: .hexReport, budget: 4)
    #expect(sender.frameCount == 3)
    // 50 0000 00010203
    #expect(sender.start() == hex("50 0000 00010203"))
    // app ack 53 0004 03E8 0000 → 51 0004 04050607
    #expect(sender.receive(ReportAck(dataType: .hexReport, receivedLength: 4)) == .send(hex("51 0004 04050607")))
    // an ack with the wrong length fails the report
    var copy = sender
    #expect(copy.receive(ReportAck(dataType: .hexReport, receivedLength: 7)) == .failed)
    #expect(sender.receive(ReportAck(dataType: .hexReport, receivedLength: 8)) == .send(hex("52 0008 0809")))
    #expect(sender.receive(ReportAck(dataType: .hexReport, receivedLength: 10)) == .done)
  }
}
