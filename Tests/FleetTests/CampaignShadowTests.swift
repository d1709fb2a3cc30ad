import BeaconCore
import Foundation
import Synchronization
import Testing

@testable import Fleet

/// A device a neighbour's DFU bootloader shadows (`BootloaderAtAddress`; `Campaign+Shadow`): the campaign waits it
/// out without spending an attempt, or — a round of a shared run — leaves it for a later round, for a bounded
/// time; a stop meanwhile ends it pending and the campaign interrupted.
@Suite(.timeLimit(.minutes(1))) struct CampaignShadowTests {
  typealias Fixture = ApplyCampaignTests.Fixture

  /// Each device's attempts fail shadowed `shadowedFor` times, then succeed; every attempt is counted.
  final class ShadowedWork: CampaignWork {
    let shadowedFor: Int
    let attempts = Mutex<[String: Int]>([:])
    init(shadowedFor: Int) { self.shadowedFor = shadowedFor }

    func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome {
      let n = attempts.withLock { counts in
        counts[target.address.description, default: 0] += 1
        return counts[target.address.description]!
      }
      if n <= shadowedFor { throw BootloaderAtAddress() }
      return .compliant
    }
  }

  /// The pauses a campaign asked for, none really taken.
  final class Sleeps: Sendable {
    let all = Mutex<[Duration]>([])
  }

  static func campaign(
    _ work: ShadowedWork, _ f: Fixture, run: String, options: Campaign.Options, sleeps: Sleeps = Sleeps()
  ) -> Campaign {
    Campaign(
      work: work, targets: Array(f.targets.prefix(1)), journal: f.journal, run: run, options: options,
      sleep: { delay in sleeps.all.withLock { $0.append(delay) } })
  }

  @Test func aShadowedDeviceWaitsItOutWithoutSpendingAnAttempt() async throws {
    let f = try Fixture(count: 1)
    let work = ShadowedWork(shadowedFor: 3)
    let sleeps = Sleeps()
    let options = Campaign.Options(
      parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero), shadowWait: .seconds(10),
      shadowLook: .seconds(2))
    let summary = await Self.campaign(work, f, run: try await f.newRun(), options: options, sleeps: sleeps).start()
    #expect(summary.outcomes.values.first == .compliant, "one attempt allowed, three shadowed looks not counted")
    #expect(sleeps.all.withLock { $0 } == [.seconds(2), .seconds(2), .seconds(2)])
    #expect(!summary.interrupted)
  }

  @Test func aShadowLongerThanTheWaitSpendsTheAttemptsAndFails() async throws {
    let f = try Fixture(count: 1)
    let work = ShadowedWork(shadowedFor: 100)
    let options = Campaign.Options(
      parallel: 1, retry: RetryPolicy(maximumAttempts: 2, firstDelay: .zero), shadowWait: .seconds(3),
      shadowLook: .seconds(2))
    let run = try await f.newRun()
    let summary = await Self.campaign(work, f, run: run, options: options).start()
    guard case .failed(_, .bootloaderAtAddress)? = summary.outcomes.values.first else {
      Issue.record("\(summary.outcomes)")
      return
    }
    // Two looks (2 s, then the last 1 s), then the two attempts: four attempts in all.
    #expect(work.attempts.withLock { $0.values.first } == 4)
  }

  @Test func aSharedRunsRoundLeavesTheDeviceForALaterOneUntilTheBoundThenSpendsItsAttempts() async throws {
    let f = try Fixture(count: 1)
    let address = f.targets[0].address.description
    let work = ShadowedWork(shadowedFor: 100)
    let deferrals = ShadowDeferrals(bound: .seconds(3600))
    let options = Campaign.Options(
      parallel: 1, retry: RetryPolicy(maximumAttempts: 2, firstDelay: .zero), deferShadowed: deferrals)
    let run = try await f.newRun()
    let round = await Self.campaign(work, f, run: run, options: options).start()
    #expect(round.outcomes[address] == .pending)
    #expect(!round.interrupted, "a device left for a later round does not interrupt the round")
    #expect(round.deferred == [address])
    let row = try await f.journal.device(run: run, address: address)
    #expect(row?.state == .pending && row?.failureKind == .bootloaderAtAddress)
    #expect(work.attempts.withLock { $0[address] } == 1)

    // Past the bound: no more deferral, the attempts are spent and the device fails.
    let spent = Campaign.Options(
      parallel: 1, retry: RetryPolicy(maximumAttempts: 2, firstDelay: .zero),
      deferShadowed: ShadowDeferrals(bound: .zero))
    let last = await Self.campaign(work, f, run: run, options: spent).start()
    guard case .failed(_, .bootloaderAtAddress)? = last.outcomes[address] else {
      Issue.record("\(last.outcomes)")
      return
    }
    #expect(work.attempts.withLock { $0[address] } == 3)
  }

  @Test func aStopDuringTheWaitEndsTheDevicePendingAndTheCampaignInterrupted() async throws {
    let f = try Fixture(count: 1)
    let work = ShadowedWork(shadowedFor: 100)
    let (looks, looked) = AsyncStream.makeStream(of: Duration.self)
    let campaign = Campaign(
      work: work, targets: f.targets, journal: f.journal, run: try await f.newRun(),
      options: .init(parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero)),
      sleep: { delay in
        looked.yield(delay)
        try await Task.sleep(for: .seconds(3600))
      })
    let running = Task { await campaign.start() }
    var iterator = looks.makeAsyncIterator()
    #expect(await iterator.next() == .seconds(2))
    await campaign.requestStop()
    let summary = await running.value
    #expect(summary.interrupted)
    #expect(summary.outcomes.values.first == .pending)
  }
}
