import BeaconCore
import TestClocks
import Testing

@testable import TextStream

/// The client driving the engine over a scripted link, on a manual clock: each test is a transcript of
/// writes, acks, notifications and clock steps.
@Suite(.timeLimit(.minutes(5))) struct TextStreamClientTranscriptTests {
  /// Distinct durations, so the armed timer tells which wait is running.
  static let timeouts = TextStreamTimeouts(
    firstFragmentSend: .seconds(1), laterFragmentSend: .milliseconds(1500), firstPacket: .seconds(2),
    interFragment: .milliseconds(200))

  func make(_ profile: TextStreamProfile = .tertiumTxRx, mtu: Int = 247, autoAck: Bool = true)
    -> (FakeTextLink, TextStreamClient, ManualClock)
  {
    let clock = ManualClock()
    let link = FakeTextLink(profile: profile, mtu: mtu, autoAck: autoAck)
    return (link, TextStreamClient(link: link, timeouts: Self.timeouts, clock: clock), clock)
  }

  /// The device answers the running command with one notification once the first-packet timer runs, and
  /// the inter-fragment timeout passes.
  func reply(_ text: String, _ link: FakeTextLink, _ clock: ManualClock) async {
    await clock.waitForTimer(.seconds(2))
    link.notify(text)
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(200))
  }

  /// At MTU 23 a Tertium TxRx command goes in 20-byte writes, each after the previous one's ack; the
  /// answer spans three notifications and ends 200 ms after the last.
  @Test func fragmentsWaitForAcksAndAnswerSpansNotifications() async throws {
    let (link, client, clock) = make(mtu: 23, autoAck: false)
    let command = "$:READ,EPC,0123456789ABCDEF0123"  // 31 bytes + CRLF = 33 → 20 + 13
    let answer = Task { try await client.send(command) }
    await link.signal.wait { link.heldCount == 1 }
    #expect(link.writes == [Array(command.utf8.prefix(20))])
    await clock.waitForTimer(.seconds(1))
    link.ack()
    await link.signal.wait { link.heldCount == 1 && link.writes.count == 2 }
    #expect(link.writes[1] == Array(command.utf8.dropFirst(20)) + [0x0D, 0x0A])
    await clock.waitForTimer(.milliseconds(1500))
    link.ack()
    await clock.waitForTimer(.seconds(2))
    for part in ["EPC=3000E2001234", "5678ABCD00112233", ",RSSI=-61\r\n"] {
      clock.advance(by: .milliseconds(150))
      link.notify(part)
      await clock.waitForTimer(.milliseconds(200))
    }
    clock.advance(by: .milliseconds(200))
    let got = try await answer.value
    #expect(got.text == "EPC=3000E20012345678ABCD00112233,RSSI=-61\r\n")
    #expect(got.notifications == 3)
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  /// Nothing notified within 2 s after the ack: a receive timeout, and the client takes the next command.
  @Test func firstPacketTimeout() async throws {
    let (link, client, clock) = make()
    let answer = Task { try await client.send("ver") }
    await clock.waitForTimer(.seconds(2))
    clock.advance(by: .seconds(2))
    await #expect(throws: TextStreamError.receiveTimeout(after: .seconds(2))) { try await answer.value }
    let second = Task { try await client.send("ver") }
    await reply("v2", link, clock)
    #expect(try await second.value.text == "v2")
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  /// Silence of 200 ms splits what the device says into two answers: the second burst, coming after the
  /// first answer ended, belongs to no command (it goes to `unsolicited`) and not to the next answer.
  @Test func interFragmentTimeoutSplitsAnswersAndALateFragmentIsUnsolicited() async throws {
    let (link, client, clock) = make()
    let first = Task { try await client.send("inventory") }
    await reply("TAG1\r\n", link, clock)
    #expect(try await first.value.text == "TAG1\r\n")
    link.notify("TAG2\r\n")  // late: after the inter-fragment timeout
    var unsolicited = client.unsolicited.makeAsyncIterator()
    #expect(await unsolicited.next() == Array("TAG2\r\n".utf8))
    let second = Task { try await client.send("ver") }
    await reply("v2", link, clock)
    #expect(try await second.value.text == "v2")
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  /// A fragment that comes just inside the inter-fragment timeout still belongs to the answer.
  @Test func fragmentJustInTimeJoinsTheAnswer() async throws {
    let (link, client, clock) = make()
    let answer = Task { try await client.send("ver") }
    await clock.waitForTimer(.seconds(2))
    link.notify("TxRx ")
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(199))
    link.notify("v2")
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(200))
    #expect(try await answer.value.text == "TxRx v2")
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  /// A device still busy refuses the write with «Procedure Already in Progress»: `deviceBusy`, and the
  /// next command goes through.
  @Test func busyDevice() async throws {
    let (link, client, clock) = make(autoAck: false)
    let answer = Task { try await client.send("inventory") }
    await link.signal.wait { link.heldCount == 1 }
    link.refuse(.procedureAlreadyInProgress)
    await #expect {
      try await answer.value
    } throws: {
      ($0 as? TextStreamError)?.code == "device-busy"
    }
    let retry = Task { try await client.send("inventory") }
    await link.signal.wait { link.heldCount == 1 }
    link.ack()
    await reply("TAG1", link, clock)
    #expect(try await retry.value.text == "TAG1")
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  /// One command in flight per device: a second send fails at once.
  @Test func oneCommandInFlight() async throws {
    let (link, client, clock) = make()
    let first = Task { try await client.send("ver") }
    await clock.waitForTimer(.seconds(2))
    await #expect(throws: TextStreamError.commandInFlight) { try await client.send("again") }
    link.notify("v2")
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(200))
    #expect(try await first.value.text == "v2")
    #expect(link.writes.count == 1)
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  @Test func unackedWriteIsASendTimeout() async throws {
    let (link, client, clock) = make(autoAck: false)
    let answer = Task { try await client.send("ver") }
    await link.signal.wait { link.heldCount == 1 }
    await clock.waitForTimer(.seconds(1))
    clock.advance(by: .seconds(1))
    await #expect(throws: TextStreamError.sendTimeout(fragment: 1, of: 1, after: .seconds(1))) {
      try await answer.value
    }
    link.ack()  // the late ack is ignored
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  /// Per-command timeouts replace the client's.
  @Test func perCommandTimeouts() async throws {
    let (link, client, clock) = make()
    let slow = Self.timeouts.overriding(firstPacket: .seconds(5), interFragment: .milliseconds(700))
    let answer = Task { try await client.send("scan", timeouts: slow) }
    await clock.waitForTimer(.seconds(5))
    link.notify("done")
    await clock.waitForTimer(.milliseconds(700))
    clock.advance(by: .milliseconds(700))
    #expect(try await answer.value.text == "done")
    await client.close()  // ends the pump, which holds the client, its link and clock
  }

  @Test func linkLostDuringACommand() async throws {
    let (link, client, clock) = make()
    let answer = Task { try await client.send("ver") }
    await clock.waitForTimer(.seconds(2))
    link.drop()
    await #expect(throws: TextStreamError.self) { try await answer.value }
    await #expect(throws: TextStreamError.self) { try await client.send("ver") }
  }
}
