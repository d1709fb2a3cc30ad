import BeaconCore
import Profiles
import Synchronization

@testable import Fleet

/// A firmware updater for one device that runs 4.00 until updated to 5.00, and whose first `failedReads`
/// identities read after the update fail with `failure` (a neighbour's bootloader at its address, a connect
/// that timed out, …): the read-back after a transfer (`FirmwareWork.identifyAfterTransfer`).
final class FailingReadsAfterUpdate: FirmwareUpdater {
  let failedReads: Int
  let failure: any Error & Sendable
  let state = Mutex((updated: false, readsAfter: 0, transfers: 0))
  /// Run before a read after the update fails (a test's Ctrl-C at that moment).
  let onFailedRead = Mutex<(@Sendable () async -> Void)?>(nil)
  init(failedReads: Int, failure: any Error & Sendable) {
    self.failedReads = failedReads
    self.failure = failure
  }

  func identify(_ target: Target) async throws -> DeviceIdentity {
    let fails = state.withLock { s -> Bool in
      guard s.updated else { return false }
      s.readsAfter += 1
      return s.readsAfter <= failedReads
    }
    if fails {
      if let hook = onFailedRead.withLock({ $0 }) { await hook() }
      throw failure
    }
    let updated = state.withLock { $0.updated }
    return DeviceIdentity(model: "KBPro", hardware: "V1.0", firmware: FirmwareVersion(updated ? "5.00" : "4.00"))
  }

  func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
    -> FirmwareTransferResult
  {
    state.withLock {
      $0.updated = true
      $0.transfers += 1
    }
    return FirmwareTransferResult()
  }

  /// One device at `address` in a new run of an in-memory journal, and firmware work updating it to 5.00
  /// through a `FailingReadsAfterUpdate`, with no bootloader quarantine (as reconcile runs it).
  static func device(_ address: String, failedReads: Int, failure: any Error & Sendable) async throws
    -> (Target, Journal, String, FailingReadsAfterUpdate, FirmwareWork)
  {
    let target = Target(address: BluetoothAddress(address)!)
    let journal = try Journal(path: nil)
    let run = try await journal.createRun(kind: "dfu", source: "app.zip", adapter: "test", addresses: [address])
    let updater = FailingReadsAfterUpdate(failedReads: failedReads, failure: failure)
    let version = FirmwareVersion("5.00")!
    var work = FirmwareWork(
      plan: FirmwarePlan(version: version, minimumBattery: nil), identifier: updater,
      route: SinglePackageRoute(FirmwareInstall(version: version, updater: updater)), batteries: [:])
    work.bootloaderQuarantine = nil
    return (target, journal, run, updater, work)
  }
}
