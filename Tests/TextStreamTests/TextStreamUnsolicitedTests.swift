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
}
