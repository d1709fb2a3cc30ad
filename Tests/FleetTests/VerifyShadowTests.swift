import BeaconCore
import Foundation
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// The version read back after a transfer that succeeded, while a neighbour's DFU bootloader answers at the
/// device's address (another gateway updating the device below): waited out, and the device reported updated
/// — not failed, which `reconcile` reopened with what the journal knew of the transfer cleared, so its next pass
/// reported the updated device "skipped: up to date" (`FirmwareWork.identifyAfterTransfer`).
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

  @Test func aNeighboursBootloaderMetWhileReadingTheNewVersionIsWaitedOut() async throws {
    let target = Target(address: BluetoothAddress("DD:00:00:00:00:10")!)
    let journal = try Journal(path: nil)
    let run = try await journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "test", addresses: [target.address.description])
    let updater = ShadowedAfterUpdate(shadowedReads: 2)
    let version = FirmwareVersion("5.00")!
    var work = FirmwareWork(
      plan: FirmwarePlan(version: version, minimumBattery: nil), identifier: updater,
      route: SinglePackageRoute(FirmwareInstall(version: version, updater: updater)), batteries: [:])
    work.bootloaderQuarantine = nil  // as reconcile runs it
    let campaign = Campaign(
      work: work, targets: [target], journal: journal, run: run,
      options: .init(parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero), shadowWait: .zero),
      sleep: { _ in })
    let summary = await campaign.start()
    #expect(summary.outcomes[target.address.description]?.state == .verified, "\(summary.outcomes)")
    #expect(updater.state.withLock { $0.readsAfter } == 3)
  }
}
