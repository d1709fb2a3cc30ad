import TestClocks
import Testing

@testable import BeaconCore

/// `MessageInbox`'s one receive-timeout watchdog per inbox (`armWatchdog`): messages that arrive in time leave
/// no timer of their own behind; a later wait still times out after its own timeout; a shorter timeout than
/// the last replaces the sleeper; an ended inbox stops it.
@Suite(.timeLimit(.minutes(1))) struct MessageInboxWatchdogTests {
  /// One `receive` that `push` answers while it waits.
  private func receiveAnswered(_ inbox: MessageInbox<Int>, timeout: Duration, with message: Int) async -> Int? {
    async let received = inbox.receive(timeout: timeout)
    await inbox.pushWhenWaited(message)
    return try? await received.get()
  }

  @Test func messagesInTimeLeaveOneWatchdog() async {
    let clock = ManualClock()
    let inbox = MessageInbox<Int>(clock: clock)
    for n in 0..<5 { #expect(await receiveAnswered(inbox, timeout: .seconds(5), with: n) == n) }
    await clock.signal.wait { clock.sleeperCount > 0 }
    // One sleeper, due when the first wait would have timed out: a timer per wait started five (each a
    // pool job and a timer-thread wake, cancelled again when its message came).
    #expect(await inbox.watchdogCount == 1)
    #expect(clock.sleeperCount == 1)
    #expect(clock.deadlines == [.seconds(5)])
  }

  @Test func aLaterWaitTimesOutAfterItsOwnTimeout() async {
    let clock = ManualClock()
    let inbox = MessageInbox<Int>(clock: clock)
    #expect(await receiveAnswered(inbox, timeout: .seconds(5), with: 1) == 1)
    await clock.signal.wait { clock.sleeperCount > 0 }
    clock.advance(by: .seconds(3))
    let late = Task { await inbox.receive(timeout: .seconds(5)) }
    await inbox.waitForWaiter()
    // At 5 s the watchdog wakes for the first wait's deadline, finds the second waiting and sleeps on to
    // its deadline, 3 + 5 s.
    clock.advance(by: .seconds(2))
    await clock.signal.wait { clock.deadlines == [.seconds(8)] }
    clock.advance(by: .seconds(2))
    #expect(await inbox.isWaiting)
    clock.advance(by: .seconds(1))
    guard case .failure(.timedOut) = await late.value else {
      Issue.record("expected a timeout 5 s after the later wait began")
      return
    }
  }

  @Test func aShorterTimeoutReplacesTheWatchdog() async {
    let clock = ManualClock()
    let inbox = MessageInbox<Int>(clock: clock)
    #expect(await receiveAnswered(inbox, timeout: .seconds(30), with: 1) == 1)
    let short = Task { await inbox.receive(timeout: .seconds(1)) }
    await inbox.waitForWaiter()
    // The 30 s sleeper would wake too late for a 1 s wait: cancelled, it leaves the clock.
    await clock.signal.wait { clock.deadlines == [.seconds(1)] }
    #expect(await inbox.watchdogCount == 2)
    clock.advance(by: .seconds(1))
    guard case .failure(.timedOut) = await short.value else {
      Issue.record("expected a timeout after 1 s")
      return
    }
    // The message that comes late is kept for the next wait, which the replaced watchdog did not disturb.
    await inbox.push(2)
    #expect(await inbox.next(timeout: .seconds(5)) == 2)
  }

  @Test func anEndedInboxStopsItsWatchdog() async {
    let clock = ManualClock()
    let inbox = MessageInbox<Int>(clock: clock)
    #expect(await receiveAnswered(inbox, timeout: .seconds(5), with: 1) == 1)
    await clock.signal.wait { clock.sleeperCount > 0 }
    await inbox.finish(LinkError(.disconnected))
    await clock.signal.wait { clock.sleeperCount == 0 }
    #expect(clock.deadlines.isEmpty)
  }
}

extension MessageInbox {
  /// Whether a caller waits in `receive` now.
  var isWaiting: Bool { hasWaiter }

  /// Returns once a caller waits in `receive`.
  func waitForWaiter() async {
    while !hasWaiter { await Task.yield() }
  }

  /// Pushes `message` once a caller waits for it (so it is handed over, not queued).
  func pushWhenWaited(_ message: Message) async {
    await waitForWaiter()
    push(message)
  }
}
