import Testing

@testable import BeaconCore

/// The shared inbox of the KBeacon session and the DFU links: order, timeouts, ending and stopping, as its
/// documentation states them.
@Suite("MessageInbox", .timeLimit(.minutes(1))) struct MessageInboxTests {
  struct Failure: Error, Equatable { let tag: Int }

  private func message(_ result: Result<[UInt8], InboxMiss>) -> [UInt8]? { try? result.get() }

  private func endReason(_ result: Result<[UInt8], InboxMiss>) -> (any Error)? {
    guard case .failure(.ended(let error)) = result else { return nil }
    return error
  }

  @Test func queuedMessagesComeOutInArrivalOrder() async {
    let inbox = MessageInbox<[UInt8]>()
    await inbox.push([1])
    await inbox.push([2])
    #expect(message(await inbox.receive(timeout: .seconds(30))) == [1])
    #expect(message(await inbox.receive(timeout: .seconds(30))) == [2])
  }

  @Test func aWaiterGetsAMessagePushedWhileItWaits() async {
    let inbox = MessageInbox<[UInt8]>()
    async let received = inbox.receive(timeout: .seconds(30))
    await inbox.push([7])
    #expect(message(await received) == [7])
  }

  @Test func aTimeoutKeepsTheInboxOpenAndALateMessageForTheNextCall() async {
    let inbox = MessageInbox<[UInt8]>()
    guard case .failure(.timedOut) = await inbox.receive(timeout: .milliseconds(20)) else {
      Issue.record("expected a timeout")
      return
    }
    #expect(await inbox.next(timeout: .milliseconds(20)) == nil)
    await inbox.push([9])
    #expect(await inbox.next(timeout: .seconds(30)) == [9])
  }

  @Test func discardBufferedDropsOnlyWhatIsQueued() async {
    let inbox = MessageInbox<[UInt8]>()
    await inbox.push([1])
    await inbox.discardBuffered()
    await inbox.push([2])
    #expect(message(await inbox.receive(timeout: .seconds(30))) == [2])
  }

  @Test func queuedMessagesOutliveTheEndThenTheFirstReasonIsReported() async {
    let inbox = MessageInbox<[UInt8]>()
    await inbox.push([1])
    await inbox.finish(Failure(tag: 1))
    await inbox.finish(Failure(tag: 2))
    #expect(message(await inbox.receive(timeout: .seconds(30))) == [1])
    #expect(endReason(await inbox.receive(timeout: .seconds(30))) as? Failure == Failure(tag: 1))
    #expect(await inbox.next(timeout: .seconds(30)) == nil)
  }

  @Test func aStreamThatFinishesEndsTheInboxAsADisconnect() async {
    let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
    let inbox = MessageInbox<[UInt8]>()
    await inbox.start(stream)
    continuation.yield([3])
    continuation.finish()
    #expect(message(await inbox.receive(timeout: .seconds(30))) == [3])
    #expect((endReason(await inbox.receive(timeout: .seconds(30))) as? LinkError)?.code == .disconnected)
  }

  @Test func aFailingStreamEndsTheInboxWithItsError() async {
    let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    let inbox = MessageInbox<[UInt8]>()
    await inbox.start(stream)
    continuation.yield([4])
    continuation.finish(throwing: Failure(tag: 4))
    #expect(message(await inbox.receive(timeout: .seconds(30))) == [4])
    #expect(endReason(await inbox.receive(timeout: .seconds(30))) as? Failure == Failure(tag: 4))
  }

  @Test func stopReleasesAPendingWaiter() async {
    let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
    let inbox = MessageInbox<[UInt8]>()
    await inbox.start(stream)
    async let received = inbox.receive(timeout: .seconds(30))
    await inbox.stop()
    #expect((endReason(await received) as? LinkError)?.code == .disconnected)
    continuation.finish()
  }

  /// Releasing the inbox cancels its pump, so a stream that never finishes is not read for ever (the pump
  /// task and the stream were leaked before; without the fix this test waits until its time limit).
  @Test func aReleasedInboxStopsReadingItsStream() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let (terminated, signal) = AsyncStream.makeStream(of: Void.self)
    continuation.onTermination = { _ in signal.finish() }
    do {
      let inbox = MessageInbox<Int>()
      await inbox.start(stream)
    }
    for await _ in terminated {}  // ends when the pump stops reading: the stream's onTermination
  }
}
