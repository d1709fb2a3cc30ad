import Testing

@testable import TextStream

/// The pure engine, event by event: what it writes, which timer it arms, when an answer ends.
@Suite(.timeLimit(.minutes(5))) struct TextStreamExchangeTests {
  let timeouts = TextStreamTimeouts(
    firstFragmentSend: .seconds(1), laterFragmentSend: .milliseconds(1500), firstPacket: .seconds(2),
    interFragment: .milliseconds(200))

  /// Every profile's fragment size on a 247-byte MTU, and on the default 23-byte MTU where ATT_MTU − 3
  /// (20) caps the 240-byte profiles.
  @Test(arguments: [
    ("tertium-sensor", 247, 240), ("ackme", 247, 15), ("zhaga", 247, 240), ("tertium-txrx", 247, 240),
    ("tertium-zebra", 247, 240), ("tertium-legacy", 247, 20), ("nordic-uart", 247, 244),
    ("tertium-txrx", 23, 20), ("ackme", 23, 15), ("nordic-uart", 23, 20), ("tertium-legacy", 18, 15),
  ])
  func fragmentSizePerProfileAndMTU(profile: String, mtu: Int, size: Int) throws {
    let p = try #require(TextStreamProfile.named(profile))
    #expect(p.fragmentSize(attMTU: mtu) == size)
  }

  /// "AT+NAME=Lobby-entrance-01" + CRLF is 27 bytes: at ACKme's 15 it goes in two writes (15 + 12); the
  /// next write waits for the first one's ack, and uses the later-fragment send timeout.
  @Test func fragmentsAtTheProfilesPacketSize() {
    var e = TextStreamExchange(
      command: Array("AT+NAME=Lobby-entrance-01".utf8), terminator: .crlf, fragmentSize: 15, timeouts: timeouts)
    #expect(e.fragments.map(\.count) == [15, 12])
    #expect(e.fragments.last?.suffix(2) == [0x0D, 0x0A])
    guard case .write(let first, let t1) = e.start() else {
      Issue.record("no first write")
      return
    }
    #expect(first == Array("AT+NAME=Lobby-e".utf8))
    #expect(t1.phase == .firstFragmentSend && t1.duration == .seconds(1))
    // A notification while sending is kept but does not touch the send timer.
    guard case .write(let second, let t2) = e.handle(.writeAcknowledged) else {
      Issue.record("no 2nd")
      return
    }
    #expect(second == Array("ntrance-01\r\n".utf8))
    #expect(t2.phase == .laterFragmentSend && t2.duration == .milliseconds(1500))
    guard case .arm(let t3) = e.handle(.writeAcknowledged) else {
      Issue.record("no receive timer")
      return
    }
    #expect(t3.phase == .firstPacket && t3.duration == .seconds(2))
  }

  /// A 20-byte ATT payload (MTU 23) splits a 45-byte command in 20 + 20 + 5; Zhaga ends with CR alone.
  @Test func fragmentsAtASmallMTU() {
    let command = Array(String(repeating: "x", count: 44).utf8)
    let e = TextStreamExchange(
      command: command, terminator: .cr, fragmentSize: TextStreamProfile.zhaga.fragmentSize(attMTU: 23),
      timeouts: timeouts)
    #expect(e.fragments.map(\.count) == [20, 20, 5])
    #expect(e.fragments.last?.last == 0x0D)
  }

  /// Two notifications, then silence: the answer is both, ended by the inter-fragment timer (no
  /// terminator needed); a stale timer token changes nothing.
  @Test func answerEndsBySilence() {
    var e = TextStreamExchange(command: Array("ver".utf8), terminator: .crlf, fragmentSize: 240, timeouts: timeouts)
    _ = e.start()
    guard case .arm(let first) = e.handle(.writeAcknowledged) else {
      Issue.record("no timer")
      return
    }
    guard case .arm(let gap1) = e.handle(.notification(Array("TxRx v2.".utf8))) else {
      Issue.record("1")
      return
    }
    #expect(gap1.phase == .interFragment && gap1.duration == .milliseconds(200))
    guard case .arm(let gap2) = e.handle(.notification(Array("1.0".utf8))) else {
      Issue.record("2")
      return
    }
    #expect(e.handle(.timerExpired(token: first.token)) == .wait)
    #expect(e.handle(.timerExpired(token: gap1.token)) == .wait)
    #expect(
      e.handle(.timerExpired(token: gap2.token))
        == .finish(TextStreamAnswer(bytes: Array("TxRx v2.1.0".utf8), notifications: 2)))
    #expect(e.isOver)
  }

  @Test func emptyBufferIsAReceiveTimeout() {
    var e = TextStreamExchange(command: Array("ver".utf8), terminator: .crlf, fragmentSize: 240, timeouts: timeouts)
    _ = e.start()
    guard case .arm(let timer) = e.handle(.writeAcknowledged) else {
      Issue.record("no timer")
      return
    }
    #expect(e.handle(.timerExpired(token: timer.token)) == .fail(.receiveTimeout(after: .seconds(2))))
  }

  @Test func unackedFragmentIsASendTimeout() {
    var e = TextStreamExchange(
      command: Array("0123456789abcdefghij".utf8), terminator: .none, fragmentSize: 15, timeouts: timeouts)
    _ = e.start()
    guard case .write(_, let t2) = e.handle(.writeAcknowledged) else {
      Issue.record("no 2nd")
      return
    }
    #expect(
      e.handle(.timerExpired(token: t2.token)) == .fail(.sendTimeout(fragment: 2, of: 2, after: .milliseconds(1500))))
  }

  @Test func busyAndRejectedWrites() {
    var busy = TextStreamExchange(command: Array("a".utf8), terminator: .cr, fragmentSize: 20, timeouts: timeouts)
    _ = busy.start()
    #expect(busy.handle(.writeFailed(.busy("0xFE"))) == .fail(.deviceBusy(detail: "0xFE")))
    var rejected = TextStreamExchange(command: Array("a".utf8), terminator: .cr, fragmentSize: 20, timeouts: timeouts)
    _ = rejected.start()
    #expect(rejected.handle(.writeFailed(.rejected("0x03"))) == .fail(.writeRejected(fragment: 1, detail: "0x03")))
  }

  /// A device that answers before the last ack: the bytes are kept and the inter-fragment timer follows.
  @Test func earlyAnswerIsKept() {
    var e = TextStreamExchange(command: Array("ver".utf8), terminator: .crlf, fragmentSize: 240, timeouts: timeouts)
    _ = e.start()
    #expect(e.handle(.notification(Array("OK".utf8))) == .wait)
    guard case .arm(let timer) = e.handle(.writeAcknowledged) else {
      Issue.record("no timer")
      return
    }
    #expect(timer.phase == .interFragment)
    #expect(
      e.handle(.timerExpired(token: timer.token))
        == .finish(TextStreamAnswer(bytes: Array("OK".utf8), notifications: 1)))
  }

  @Test func emptyCommandWithoutTerminator() {
    var e = TextStreamExchange(command: [], terminator: .none, fragmentSize: 20, timeouts: timeouts)
    #expect(e.start() == .fail(.emptyCommand))
  }

  @Test func answerText() {
    let a = TextStreamAnswer(bytes: Array("OK\r\nname=Lobby\r\n".utf8), notifications: 1)
    #expect(a.trimmedText == "OK\r\nname=Lobby")
    #expect(a.lines == ["OK", "name=Lobby"])
  }
}
