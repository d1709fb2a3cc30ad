import Testing

@testable import KBeacon

/// docs/protocols/kbeacon.md §4.2–§4.4: the app side of a request, against recorded device frames.
@Suite(.timeLimit(.minutes(1))) struct RequestExchangeTests {
  @Test func writeThatFitsFinishesOnCauseZero() {
    let cfg = utf8(#"{"msg":"cfg"}"#)
    var exchange = RequestExchange(kind: .json, message: cfg, budget: 17)
    #expect(exchange.start() == hex("23 0000") + cfg)
    // 23 0000 0000 0000: JSON ack, cause 0 success, no payload → plain success
    #expect(exchange.receive(hex("23 0000 0000 0000")) == .finish(.init(messages: []), ack: nil))
  }

  @Test func multiFrameRequestSendsEachFragmentTheDeviceAsksForWithCause4() {
    let message = utf8(#"{"msg":"getPara","type":3}"#)  // 26 bytes
    var exchange = RequestExchange(kind: .json, message: message, budget: 17)
    // START at 0 with 17 bytes
    #expect(exchange.start() == hex("20 0000") + Array(message[0..<17]))
    // 23 0011 0000 0004: expect next from offset 17 → END at 0x0011 with the last 9 bytes
    #expect(exchange.receive(hex("23 0011 0000 0004")) == .send(hex("22 0011") + Array(message[17...])))
    // 23 0000 0000 0000 + {"x":1}: success carrying the short response inline
    #expect(
      exchange.receive(hex("23 0000 0000 0000") + utf8(#"{"x":1}"#))
        == .finish(.init(messages: [utf8(#"{"x":1}"#)]), ack: nil))
  }

  @Test func longResponseArrivesAsReportFragmentsEachAcked() {
    var exchange = RequestExchange(kind: .json, message: utf8(#"{"msg":"getPara","type":4}"#), budget: 241)
    _ = exchange.start()
    // 23 0000 0000 0005: command received, report follows → keep waiting
    #expect(exchange.receive(hex("23 0000 0000 0005")) == .wait(restartTimer: true))
    // 30 0000 "{"a": → START; app acks 33 0004 03E8 0000 (4 bytes held)
    #expect(exchange.receive(hex("30 0000") + utf8(#"{"a""#)) == .send(hex("33 0004 03E8 0000")))
    // 31 0004 ":1, → MIDDLE at 4; ack 33 0007 …
    #expect(exchange.receive(hex("31 0004") + utf8(":1,")) == .send(hex("33 0007 03E8 0000")))
    // 32 0007 "b":2} → END at 7; the whole message completes with a final ack of 13 bytes
    #expect(
      exchange.receive(hex("32 0007") + utf8(#""b":2}"#))
        == .finish(.init(messages: [utf8(#"{"a":1,"b":2}"#)]), ack: hex("33 000D 03E8 0000")))
  }

  @Test func causeFiveMayCarryTheFirstReportBytes() {
    var exchange = RequestExchange(kind: .json, message: utf8("{}"), budget: 17)
    _ = exchange.start()
    // 23 0000 0000 0005 + {"a": → stored, acked with 4 bytes held
    #expect(exchange.receive(hex("23 0000 0000 0005") + utf8(#"{"a""#)) == .send(hex("33 0004 03E8 0000")))
    #expect(
      exchange.receive(hex("32 0004") + utf8(":1}"))
        == .finish(.init(messages: [utf8(#"{"a":1}"#)]), ack: hex("33 0007 03E8 0000")))
  }

  @Test func outOfSequenceReportIsNackedWithCauseOne() {
    var exchange = RequestExchange(kind: .json, message: utf8("{}"), budget: 17)
    _ = exchange.start()
    _ = exchange.receive(hex("30 0000 7B22"))  // START, 2 bytes
    // 32 0005: END claims offset 5 but 2 bytes are held → 33 0002 03E8 0001 and failure
    guard case .fail(.malformedFrame, let ack) = exchange.receive(hex("32 0005 7D")) else {
      Issue.record("expected a failure")
      return
    }
    #expect(ack == hex("33 0002 03E8 0001"))
  }

  @Test func deviceErrorCausesAndBusyBecomeNamedErrors() {
    var a = RequestExchange(kind: .json, message: utf8("{}"), budget: 17)
    _ = a.start()
    // cause 0x0103 input parameter invalid
    #expect(a.receive(hex("23 0000 0000 0103")) == .fail(.deviceRejected(.invalidParameter), ack: nil))
    var b = RequestExchange(kind: .json, message: utf8("{}"), budget: 17)
    _ = b.start()
    // cause 0x010C command busy
    #expect(b.receive(hex("23 0000 0000 010C")) == .fail(.busy, ack: nil))
    // a frame after the end is a state error
    if case .fail(.stateError, _) = b.receive(hex("23 0000 0000 0000")) {} else { Issue.record("expected stateError") }
  }

  @Test func hexCommandCollectsMessagesUntilCauseSix() {
    var exchange = RequestExchange(kind: .hex, message: hex("02 02 FFFFFFFF 0002 02 18"), budget: 17)
    // 03 0000 = HEX SINGLE at 0
    #expect(exchange.start() == hex("03 0000 02 02 FFFFFFFF 0002 02 18"))
    #expect(exchange.receive(hex("03 0000 0000 0005")) == .wait(restartTimer: true))
    // 53 0000 AABB: HEX report SINGLE → one message, acked 53 0002 03E8 0000
    #expect(exchange.receive(hex("53 0000 AABB")) == .send(hex("53 0002 03E8 0000")))
    // cause 7: one message done, more follow
    #expect(exchange.receive(hex("03 0000 0000 0007")) == .wait(restartTimer: true))
    #expect(exchange.receive(hex("53 0000 CC")) == .send(hex("53 0001 03E8 0000")))
    // cause 6: complete → both messages
    #expect(exchange.receive(hex("03 0000 0000 0006")) == .finish(.init(messages: [hex("AABB"), hex("CC")]), ack: nil))
  }

  @Test func authOrForeignFramesDuringARequestFail() {
    var exchange = RequestExchange(kind: .json, message: utf8("{}"), budget: 17)
    _ = exchange.start()
    if case .fail(.malformedFrame, nil) = exchange.receive(hex("13 02 F7")) {} else { Issue.record("expected failure") }
  }
}
