import BeaconCore
import Synchronization
import Testing

@testable import Fleet

/// A refused connect is a teardown of ours when a link of ours ended shortly before the connect
/// (`ConnectBaseline`): measured up to the connect as the work makes it, not up to when the campaign handles the
/// refusal, nor back to the attempt's start — on a loaded machine either can be seconds away.
@Suite("Link refusal timing", .timeLimit(.minutes(1))) struct LinkRefusalTimingTests {
  /// Work whose first connect to `stalled` is refused; `beforeConnect` runs before that connect's step (a slow
  /// step, such as a journal record on a busy server) and `afterConnect` passes between the connect and its
  /// error reaching the campaign (the process not running). Every other link is held `linkTimes[address]`, or
  /// 20 ms.
  struct StalledRefusalWork: CampaignWork {
    let stalled: String
    var beforeConnect: @Sendable () async -> Void = {}
    var afterConnect = Duration.zero
    var linkTimes: [String: Duration] = [:]
    let connects = Counter()

    /// Connects to `stalled` so far (a refusal costs no attempt: the retry is attempt 1 again).
    final class Counter: Sendable {
      let count = Mutex(0)
      func next() -> Int {
        count.withLock {
          $0 += 1
          return $0
        }
      }
    }

    func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome {
      let address = target.address.description
      let refuse = address == stalled && connects.next() == 1
      if refuse { await beforeConnect() }
      try await context.step(address, .connecting, attempt: attempt)
      if refuse {
        try await Task.sleep(for: afterConnect)
        throw LinkError(.tooManyLinks, peer: target.address, detail: "a link of ours was still being torn down")
      }
      try await context.step(address, .transferring, attempt: attempt)
      try await Task.sleep(for: linkTimes[address] ?? .milliseconds(20))
      return .updated([])
    }
  }

  /// Three devices at `--parallel 2`, device 2's first connect refused; returns the limits lowered.
  func run(
    _ work: StalledRefusalWork, over f: LinkTeardownTests.Fleet,
    onEvent: @escaping @Sendable (CampaignEvent) async -> Void = { _ in }
  ) async throws -> [Int] {
    let run = try await f.journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "test", addresses: f.targets.map(\.address.description))
    let campaign = Campaign(
      work: work, targets: f.targets, journal: f.journal, run: run,
      options: .init(parallel: 2, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero)))
    let events = LinkTeardownTests.gather(campaign.events, onEvent: onEvent)
    let summary = await campaign.start()
    #expect(summary.count(.verified) == 3 && !summary.failed, "a refusal costs no attempt")
    #expect(work.connects.count.withLock { $0 } == 2, "refused once, then connected")
    return LinkTeardownTests.lowered(await events.value)
  }

  /// Device 0's link ends, device 2 connects at once and is refused, and its error reaches the campaign 2.5 s
  /// later (device 1 long done): a teardown, and the limit stays.
  @Test func aRefusalHandledLateIsMeasuredFromItsConnect() async throws {
    let f = try LinkTeardownTests.Fleet(count: 3)
    let work = StalledRefusalWork(stalled: f.targets[2].address.description, afterConnect: .milliseconds(2500))
    #expect(try await run(work, over: f) == [])
  }

  /// Device 2 starts as device 0's link ends, but its connect comes only after device 1's 2.5 s link has ended
  /// (a slow step before it): refused right after that end, a teardown — though its attempt started 2.5 s
  /// after the last end it knew of then.
  @Test func aConnectMadeLateIsMeasuredFromTheLastEndBeforeIt() async throws {
    let f = try LinkTeardownTests.Fleet(count: 3)
    let second = f.targets[1].address.description
    let secondDone = TestFlag()
    let work = StalledRefusalWork(
      stalled: f.targets[2].address.description, beforeConnect: { await secondDone.wait() },
      linkTimes: [second: .milliseconds(2500)])
    let lowered = try await run(work, over: f) { event in
      if case .finished(address: second, _) = event { secondDone.raise() }
    }
    #expect(lowered == [])
  }
}
