import BeaconCore
import TestClocks
import Testing

@testable import TextStream

/// Hostile-input review: a line the device sends as soon as the tool subscribes (`+EVENT:CONNECTED`) landed inside the
/// first command's answer, and a late tail of an answer was never shown. What the link received before a
/// command was written is unsolicited however late the client takes it from the link's buffer, and every
/// unsolicited notification can be taken (`takeUnsolicited()`) to be shown.
@Suite(.timeLimit(.minutes(1))) struct TextStreamUnsolicitedTests {
  static let timeouts = TextStreamClientTranscriptTests.timeouts

  @Test func aLineSentBeforeTheFirstCommandIsNotPartOfItsAnswer() async throws {
    let clock = ManualClock()
    let link = FakeTextLink(profile: .tertiumTxRx)
    // On the link before the client even exists: the client takes it from the buffer only later.
    link.notify("+EVENT:CONNECTED\r\n")
    let client = TextStreamClient(link: link, timeouts: Self.timeouts, clock: clock)
    let answer = Task { try await client.send("VER") }
    await clock.waitForTimer(.seconds(2))
    link.notify("TxRx 1.0\r\n")
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(200))
    #expect(try await answer.value.text == "TxRx 1.0\r\n")
    #expect(await client.takeUnsolicited() == [Array("+EVENT:CONNECTED\r\n".utf8)])
    #expect(await client.takeUnsolicited().isEmpty)
    await client.close()
  }

  @Test func aTailAfterTheAnswerEndedIsKeptForShowing() async throws {
    let clock = ManualClock()
    let link = FakeTextLink(profile: .tertiumTxRx)
    let client = TextStreamClient(link: link, timeouts: Self.timeouts, clock: clock)
    let answer = Task { try await client.send("VER") }
    await clock.waitForTimer(.seconds(2))
    link.notify("TxRx 1.0\r\n")
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(200))
    #expect(try await answer.value.text == "TxRx 1.0\r\n")
    link.notify("+LATE\r\n")
    var kept: [[UInt8]] = []
    for _ in 0..<1000 where kept.isEmpty {
      await Task.yield()
      kept = await client.takeUnsolicited()
    }
    #expect(kept == [Array("+LATE\r\n".utf8)])
    await client.close()
  }

  /// A tail of the first answer that comes 300 ms after it ended (later than the 200 ms inter-fragment
  /// timeout). Without a quiet period the next command is written at once and the tail lands inside its
  /// answer: nothing on the air tells them apart. With `quietBeforeCommand` (400 ms, measured again after
  /// the tail) the command waits, the tail is unsolicited and the answer is the device's answer alone.
  @Test(arguments: [false, true]) func aLateTailBeforeTheNextCommandIsKeptOutOfItsAnswer(quiet: Bool) async throws {
    let clock = ManualClock()
    let link = FakeTextLink(profile: .tertiumTxRx)
    let client = TextStreamClient(
      link: link, timeouts: Self.timeouts, clock: clock, quietBeforeCommand: quiet ? .milliseconds(400) : nil)
    let first = Task { try await client.send("VER") }
    await clock.waitForTimer(.seconds(2))
    link.notify("TxRx 1.0\r\n")
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(200))
    #expect(try await first.value.text == "TxRx 1.0\r\n")
    let second = Task { try await client.send("VER") }
    if quiet {
      await clock.waitForTimer(.milliseconds(400))
      clock.advance(by: .milliseconds(300))
      link.notify("+TAIL\r\n")  // 300 ms late, during the quiet period
      clock.advance(by: .milliseconds(100))
      // The tail came: the quiet period starts again, and the command waits for it.
      await clock.waitForTimer(.milliseconds(400))
      #expect(link.writes.count == 1)
      clock.advance(by: .milliseconds(400))
    }
    await clock.waitForTimer(.seconds(2))
    if !quiet { link.notify("+TAIL\r\n") }  // written at once: the tail comes after the command
    link.notify("TxRx 1.0\r\n")
    await clock.waitForTimer(.milliseconds(200))
    clock.advance(by: .milliseconds(200))
    let answer = try await second.value.text
    #expect(answer == (quiet ? "TxRx 1.0\r\n" : "+TAIL\r\nTxRx 1.0\r\n"))
    #expect(await client.takeUnsolicited() == (quiet ? [Array("+TAIL\r\n".utf8)] : []))
    await client.close()
  }
}
