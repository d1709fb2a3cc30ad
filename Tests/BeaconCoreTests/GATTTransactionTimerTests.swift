import TestClocks
import Testing

@testable import BeaconCore

/// The transaction timeout's one watchdog per link (Core v5.4 Vol 3 Part F §3.3.3; `GATTClient.watchTransactions`):
/// requests answered in time leave no timer of their own behind, and a request sent later still times out
/// 30 s after its own send, not after the first one's.
@Suite(.timeLimit(.minutes(1))) struct GATTTransactionTimerTests {
  /// → 0A 0300 (Read Request, handle 3) ← 0B 01 (Read Response, value 01).
  static let answeredRead = ScriptedBearer.Exchange(request: [0x0A, 0x03, 0x00], answers: [[0x0B, 0x01]])

  @Test func thirtySecondTimeoutOnAnInjectedClock() async throws {
    let clock = ManualClock()
    let bearer = ScriptedBearer([.init(request: [0x0A, 0x03, 0x00], answers: [])])  // → 0A 0300, never answered
    let client = GATTClient(bearer: bearer, clock: clock)
    let read = Task { try await client.read(3) }
    await clock.signal.wait { clock.sleeperCount > 0 }
    clock.advance(by: .seconds(29))
    // Not due: the advance resumed nobody, the timeout is still asleep.
    #expect(clock.sleeperCount == 1)
    await Self.expectTimeoutAfterOneMoreSecond(of: read, client: client, bearer: bearer, clock: clock)
  }

  @Test func answeredRequestsLeaveOneTimerForTheLink() async throws {
    let clock = ManualClock()
    let bearer = ScriptedBearer(Array(repeating: Self.answeredRead, count: 5))
    let client = GATTClient(bearer: bearer, clock: clock)
    for _ in 0..<5 { #expect(try await client.read(3) == [0x01]) }
    await clock.signal.wait { clock.sleeperCount > 0 }
    // One sleeper, due when the first request would have timed out: a timer per request left five (or,
    // cancelled on each answer, none — and a pool job and a timer-thread wake for each round trip).
    #expect(clock.sleeperCount == 1)
    #expect(clock.deadlines == [.seconds(30)])
    #expect(await client.terminationError == nil)
    await client.close()
    await clock.signal.wait { clock.sleeperCount == 0 }
  }

  @Test func aLaterRequestTimesOutThirtySecondsAfterItsOwnSend() async throws {
    let clock = ManualClock()
    // → 0A 0400 (Read Request, handle 4): never answered.
    let bearer = ScriptedBearer([Self.answeredRead, .init(request: [0x0A, 0x04, 0x00], answers: [])])
    let client = GATTClient(bearer: bearer, clock: clock)
    #expect(try await client.read(3) == [0x01])
    await clock.signal.wait { clock.sleeperCount > 0 }
    clock.advance(by: .seconds(20))
    let late = Task { try await client.read(4) }
    while bearer.sent.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
    // At 30 s the watchdog wakes for the first request's deadline, finds the second outstanding and sleeps
    // on to its deadline, 20 + 30 s.
    clock.advance(by: .seconds(10))
    await clock.signal.wait { clock.deadlines == [.seconds(50)] }
    clock.advance(by: .seconds(19))
    await Self.expectTimeoutAfterOneMoreSecond(of: late, client: client, bearer: bearer, clock: clock)
  }

  @Test func closingTheClientEndsItsWatchdog() async throws {
    let clock = ManualClock()
    let client = GATTClient(bearer: ScriptedBearer([Self.answeredRead]), clock: clock)
    #expect(try await client.read(3) == [0x01])
    await clock.signal.wait { clock.sleeperCount > 0 }
    await client.close()
    // Cancelled, the sleeper leaves the manual clock at once.
    await clock.signal.wait { clock.sleeperCount == 0 }
    #expect(clock.deadlines.isEmpty)
  }

  /// `read` (a Read Request the peer never answers) has not timed out yet: the client is alive, its bearer
  /// open; one second more on `clock` and it fails with the 30 s transaction timeout, the bearer closed.
  static func expectTimeoutAfterOneMoreSecond(
    of read: Task<[UInt8], any Error>, client: GATTClient, bearer: ScriptedBearer, clock: ManualClock
  ) async {
    #expect(await client.terminationError == nil)
    #expect(!bearer.isClosed)
    clock.advance(by: .seconds(1))
    await #expect(throws: GATTError.transactionTimeout(request: .readRequest, after: .seconds(30))) {
      try await read.value
    }
    #expect(bearer.isClosed)
  }
}
