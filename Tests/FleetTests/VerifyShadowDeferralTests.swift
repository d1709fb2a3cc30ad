import BeaconCore
import Foundation
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// A shared run's rounds and a neighbour's bootloader met while the new version is read back
/// (`FirmwareWork.identifyAfterTransfer`, `CampaignContext.defersShadow(of:)`): the device left for a later round
/// leaves no quarantine on the device above (its own transfer finished), the journal goes on saying what was
/// being read back through further deferrals (so a visit by another process reports it updated), and a device
/// whose deferrals are spent waits the shadow out rather than spending attempts against it.
@Suite(.timeLimit(.minutes(1))) struct VerifyShadowDeferralTests {
  typealias Shadowed = VerifyShadowTests.ShadowedAfterUpdate

  /// One round of `work` over `target` with `deferrals`, retries not paused.
  static func round(
    _ work: FirmwareWork, _ target: Target, _ journal: Journal, _ run: String, _ deferrals: ShadowDeferrals
  ) async -> CampaignSummary {
    await Campaign(
      work: work, targets: [target], journal: journal, run: run,
      options: .init(parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero), deferShadowed: deferrals),
      sleep: { _ in }
    ).start()
  }

  @Test func aDeviceLeftForALaterRoundAfterItsTransferQuarantinesNoNeighbour() async throws {
    var (target, journal, run, _, work) = try await VerifyShadowTests.device("DD:00:00:00:00:20", shadowedReads: 1)
    work.bootloaderQuarantine = FirmwareWork.defaultBootloaderQuarantine
    let first = await Self.round(work, target, journal, run, ShadowDeferrals())
    #expect(first.deferred == [target.address.description], "\(first.outcomes)")
    #expect(await work.neighbourhood.quarantinedAddresses.isEmpty, "the device above would wait 130 s")
  }

  @Test func theJournalKeepsTheReadBackThroughASecondDeferralForAnotherProcessToReport() async throws {
    let (target, journal, run, updater, work) = try await VerifyShadowTests.device(
      "DD:00:00:00:00:21", shadowedReads: 2)
    let deferrals = ShadowDeferrals()
    let address = target.address.description
    for _ in 0..<2 {
      let summary = await Self.round(work, target, journal, run, deferrals)
      #expect(summary.deferred == [address], "\(summary.outcomes)")
      let row = try #require(try await journal.device(run: run, address: address))
      #expect(row.step == VisitStep.verifying.rawValue && row.changeList.map(\.key) == ["ver"], "\(row)")
    }
    // Another process: new work, which remembers nothing of the transfer but what the journal says.
    var fresh = FirmwareWork(
      plan: work.plan, identifier: updater,
      route: SinglePackageRoute(FirmwareInstall(version: FirmwareVersion("5.00")!, updater: updater)),
      batteries: [:])
    fresh.bootloaderQuarantine = nil
    let last = await Self.round(fresh, target, journal, run, ShadowDeferrals())
    guard case .updated(let changes) = last.outcomes[address] else {
      Issue.record("\(last.outcomes)")
      return
    }
    #expect(changes.map(\.key) == ["ver"])
  }

  @Test func aDeviceWhoseDeferralsAreSpentWaitsTheShadowOutAndIsUpdated() async throws {
    let (target, journal, run, updater, work) = try await VerifyShadowTests.device(
      "DD:00:00:00:00:22", shadowedReads: 1)
    let deferrals = ShadowDeferrals()
    // First deferred 200 s ago, past the 130 s bound.
    _ = deferrals.mayDefer(target.address.description, now: .now - .seconds(200))
    let summary = await Self.round(work, target, journal, run, deferrals)
    #expect(summary.outcomes[target.address.description]?.state == .verified, "\(summary.outcomes)")
    #expect(summary.deferred.isEmpty)
    #expect(updater.state.withLock { $0.readsAfter } == 2)
  }
}
