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
  /// Runs 4.00 until updated to 5.00; the first `shadowedReads` identities read after the update meet a
  /// neighbour's bootloader.
  final class ShadowedAfterUpdate: FirmwareUpdater {
    let shadowedReads: Int
    let state = Mutex((updated: false, readsAfter: 0))
    init(shadowedReads: Int) { self.shadowedReads = shadowedReads }

    func identify(_ target: Target) async throws -> DeviceIdentity {
      let shadowed = state.withLock { s -> Bool in
        guard s.updated else { return false }
        s.readsAfter += 1
        return s.readsAfter <= shadowedReads
      }
      if shadowed { throw BootloaderAtAddress() }
      let updated = state.withLock { $0.updated }
      return DeviceIdentity(model: "KBPro", hardware: "V1.0", firmware: FirmwareVersion(updated ? "5.00" : "4.00"))
    }

    func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
      -> FirmwareTransferResult
    {
      state.withLock { $0.updated = true }
      return FirmwareTransferResult()
    }
  }

  /// One device at `address` in a new run of an in-memory journal, and firmware work updating it to 5.00 through a
  /// `ShadowedAfterUpdate`, with no bootloader quarantine (as reconcile runs it).
  static func device(_ address: String, shadowedReads: Int) async throws
    -> (Target, Journal, String, ShadowedAfterUpdate, FirmwareWork)
  {
    let target = Target(address: BluetoothAddress(address)!)
    let journal = try Journal(path: nil)
    let run = try await journal.createRun(kind: "dfu", source: "app.zip", adapter: "test", addresses: [address])
    let updater = ShadowedAfterUpdate(shadowedReads: shadowedReads)
    let version = FirmwareVersion("5.00")!
    var work = FirmwareWork(
      plan: FirmwarePlan(version: version, minimumBattery: nil), identifier: updater,
      route: SinglePackageRoute(FirmwareInstall(version: version, updater: updater)), batteries: [:])
    work.bootloaderQuarantine = nil
    return (target, journal, run, updater, work)
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
