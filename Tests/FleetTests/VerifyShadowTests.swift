import BeaconCore
import Foundation
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// The version read back after a transfer that succeeded, while a neighbour's DFU bootloader answers at the
/// device's address (another gateway updating the device below): waited out, and the device reported updated
/// — not failed, after which a later visit (more failures, another process) could no longer tell it had updated
/// the device and reported it "skipped: up to date" (`FirmwareWork.identifyAfterTransfer`). In a round of a shared
/// run the device is left for a later round instead while its deferrals allow, and that round reports it updated.
@Suite(.timeLimit(.minutes(1))) struct VerifyShadowTests {
  typealias ShadowedAfterUpdate = FailingReadsAfterUpdate

  /// One device whose first `shadowedReads` identities read after the update meet a neighbour's bootloader
  /// (`FailingReadsAfterUpdate.device`).
  static func device(_ address: String, shadowedReads: Int) async throws
    -> (Target, Journal, String, FailingReadsAfterUpdate, FirmwareWork)
  {
    try await FailingReadsAfterUpdate.device(address, failedReads: shadowedReads, failure: BootloaderAtAddress())
  }

  @Test func aNeighboursBootloaderMetWhileReadingTheNewVersionIsWaitedOut() async throws {
    let (target, journal, run, updater, work) = try await Self.device("DD:00:00:00:00:10", shadowedReads: 2)
    let campaign = Campaign(
      work: work, targets: [target], journal: journal, run: run,
      options: .init(parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero), shadowWait: .zero),
      sleep: { _ in })
    let summary = await campaign.start()
    #expect(summary.outcomes[target.address.description]?.state == .verified, "\(summary.outcomes)")
    #expect(updater.state.withLock { $0.readsAfter } == 3)
  }

  /// A shared run's round (`deferShadowed`) does not wait: the shadow may be a dead gateway's device left in its
  /// bootloader, which this gateway takes over only in a later round — waiting held the round, so the takeover,
  /// for the whole 130 s (`SeveralGatewaysCatalogueTests` ran past its time limit so, one run in two). The round
  /// leaves the device pending, deferred; the next round of the same campaign finds the new version in place and
  /// reports the device updated (`installedEarlier`), with no second transfer.
  @Test func aSharedRunsRoundLeavesTheDeviceForALaterRoundWhichReportsItUpdated() async throws {
    let (target, journal, run, updater, work) = try await Self.device("DD:00:00:00:00:11", shadowedReads: 1)
    let deferrals = ShadowDeferrals()
    func round() async -> CampaignSummary {
      await Campaign(
        work: work, targets: [target], journal: journal, run: run,
        options: .init(
          parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero), deferShadowed: deferrals),
        sleep: { _ in }
      ).start()
    }
    let first = await round()
    #expect(first.outcomes[target.address.description] == .pending, "\(first.outcomes)")
    #expect(first.deferred == [target.address.description])
    let second = await round()
    guard case .updated(let changes) = second.outcomes[target.address.description] else {
      Issue.record("\(second.outcomes)")
      return
    }
    #expect(changes.map(\.key) == ["ver"])
    #expect(updater.state.withLock { $0.readsAfter } == 2)
  }
}
