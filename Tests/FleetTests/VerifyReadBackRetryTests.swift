import BeaconCore
import Foundation
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// The version read back after a transfer that succeeded, when the device does not answer at once (still
/// starting its new image, a controller still tearing the bootloader's link down): a failure for a passing
/// reason is tried again, a bounded number of times, and the device is reported updated — not failed, which
/// stopped a staged rollout at `--max-failures 0%` (`FirmwareWork.identifyAfterTransfer`).
@Suite(.timeLimit(.minutes(1))) struct VerifyReadBackRetryTests {
  /// One campaign of one attempt (as reconcile runs it: a failure is a failure) updating one device to 5.00,
  /// whose first `failedReads` reads after the update fail with `failure`.
  static func campaign(_ address: String, failedReads: Int, failure: any Error & Sendable) async throws
    -> (String, FailingReadsAfterUpdate, CampaignSummary)
  {
    let (target, journal, run, updater, work) = try await FailingReadsAfterUpdate.device(
      address, failedReads: failedReads, failure: failure)
    let summary = await Campaign(
      work: work, targets: [target], journal: journal, run: run,
      options: .init(parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero)), sleep: { _ in }
    ).start()
    return (address, updater, summary)
  }

  static let timedOut = LinkError(.connectTimeout, peer: nil, detail: "no connection after 10 seconds")

  @Test func aConnectThatTimesOutAfterTheUpdateIsTriedAgainAndTheDeviceReportedUpdated() async throws {
    let (address, updater, summary) = try await Self.campaign(
      "DD:00:00:00:00:20", failedReads: 2, failure: Self.timedOut)
    guard case .updated(let changes) = summary.outcomes[address] else {
      Issue.record("\(summary.outcomes)")
      return
    }
    #expect(changes.map(\.key) == ["ver"])
    #expect(updater.state.withLock { $0.readsAfter } == 3)
  }

  @Test func theRetriesAreBoundedAndTheDeviceThenFails() async throws {
    let (address, updater, summary) = try await Self.campaign(
      "DD:00:00:00:00:21", failedReads: 10, failure: Self.timedOut)
    guard case .failed(let reason, let kind) = summary.outcomes[address] else {
      Issue.record("\(summary.outcomes)")
      return
    }
    #expect(kind == .transient)
    #expect(reason.contains("no connection"))
    #expect(updater.state.withLock { $0.readsAfter } == 1 + FirmwareWork.readBackRetries)
  }

  /// A failure that would happen again (here a characteristic the device lacks) is not retried.
  @Test func aFailureThatWouldRecurIsNotTriedAgain() async throws {
    let (address, updater, summary) = try await Self.campaign(
      "DD:00:00:00:00:22", failedReads: 10, failure: GATTError.notFound("the KBeacon configuration service"))
    guard case .failed(_, let kind) = summary.outcomes[address] else {
      Issue.record("\(summary.outcomes)")
      return
    }
    #expect(kind == .permanent)
    #expect(updater.state.withLock { $0.readsAfter } == 1)
  }

  /// Ctrl-C while waiting to look again: the device ends pending, its journal row still `verifying` with its `ver`
  /// change, and the resumed run reads the new version and reports it updated, with no second transfer.
  @Test func aStopWhileWaitingToLookAgainLeavesTheDevicePendingForTheResumeToReportUpdated() async throws {
    let address = "DD:00:00:00:00:23"
    let (target, journal, run, updater, work) = try await FailingReadsAfterUpdate.device(
      address, failedReads: 1, failure: Self.timedOut)
    let options = Campaign.Options(parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero))
    let campaign = Campaign(
      work: work, targets: [target], journal: journal, run: run, options: options, sleep: { _ in })
    // Weakly: the campaign holds the work, which holds the updater (a cycle LeakSanitizer reports).
    updater.onFailedRead.withLock { $0 = { [weak campaign] in await campaign?.requestStop() } }
    let stopped = await campaign.start()
    #expect(stopped.outcomes[address] == .pending, "\(stopped.outcomes)")
    let row = try #require(try await journal.device(run: run, address: address))
    #expect(row.step == VisitStep.verifying.rawValue && row.changeList.map(\.key) == ["ver"], "\(row)")

    let resumed = await Campaign(
      work: work, targets: [target], journal: journal, run: run, options: options, sleep: { _ in }
    ).start()
    guard case .updated(let changes) = resumed.outcomes[address] else {
      Issue.record("\(resumed.outcomes)")
      return
    }
    #expect(changes.map(\.key) == ["ver"])
    #expect(updater.state.withLock { ($0.readsAfter, $0.transfers) } == (2, 1))
  }

  /// Which failures of a read-back get another look: passing ones, not the adapter refusing a link (the campaign's
  /// link limit learns from that), not one that would recur, and not a neighbour's bootloader (its own wait).
  @Test func whichReadBackFailuresGetAnotherLook() {
    #expect(FirmwareWork.mayLookAgain(after: Self.timedOut))
    #expect(FirmwareWork.mayLookAgain(after: LinkError(.disconnected, peer: nil)))
    #expect(FirmwareWork.mayLookAgain(after: GATTError.transactionTimeout(request: .readRequest, after: .seconds(30))))
    #expect(!FirmwareWork.mayLookAgain(after: LinkError(.tooManyLinks, peer: nil)))
    #expect(!FirmwareWork.mayLookAgain(after: GATTError.notFound("the KBeacon configuration service")))
    #expect(!FirmwareWork.mayLookAgain(after: BootloaderAtAddress()))
  }
}
