import BeaconCore
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// A resumed firmware campaign's device heard only as its bootloader (`BootloaderWaitingDevices`): its first visit
/// neither reads the silent application nor makes it jump (`updateWaitingInBootloader`); every later visit reads
/// the application first, so one that came back (the bootloader gave up) is read before it is updated.
@Suite(.timeLimit(.minutes(1))) struct BootloaderWaitingVisitTests {
  /// `FakeUpdater` with a log of the calls; `updateWaitingInBootloader` fails as a real one finds no bootloader
  /// when the device has left it.
  final class LoggingUpdater: FirmwareUpdater {
    let inner: FakeUpdater
    let calls = Mutex<[String]>([])
    var log: [String] { calls.withLock { $0 } }

    init(inner: FakeUpdater) { self.inner = inner }

    func identify(_ target: Target) async throws -> DeviceIdentity {
      calls.withLock { $0.append("identify") }
      return try await inner.identify(target)
    }
    func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
      -> FirmwareTransferResult
    {
      calls.withLock { $0.append("update") }
      return try await inner.update(target, progress: progress)
    }
    func updateWaitingInBootloader(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
      -> FirmwareTransferResult
    {
      calls.withLock { $0.append("update waiting") }
      guard await inner.devices[target.address]!.inBootloader else {
        throw LinkError(.connectFailed, detail: "no bootloader of the device answers")
      }
      return try await inner.update(target, progress: progress)
    }
  }

  func resume(bootloaderGaveUp: Bool) async throws -> (CampaignSummary, [String], FakeFirmwareDevice) {
    let (address, device, plan, journal, first) = try await FirmwareCampaignTests().leftMidTransfer()
    if bootloaderGaveUp { await device.leaveBootloader() }
    let updater = LoggingUpdater(inner: FakeUpdater(devices: [address: device]))
    var work = FirmwareWork(plan: plan, updater: updater, batteries: [:])
    work.waitingInBootloader = BootloaderWaitingDevices([address.description])
    let summary = await Campaign(
      work: work, targets: [Target(address: address)], journal: journal, run: first.run,
      options: .init(parallel: 1, retry: RetryPolicy(maximumAttempts: 2, firstDelay: .zero)), sleep: { _ in }
    ).start()
    return (summary, updater.log, device)
  }

  @Test func theFirstVisitGoesStraightToTheWaitingBootloader() async throws {
    let (summary, calls, device) = try await resume(bootloaderGaveUp: false)
    #expect(calls == ["update waiting", "identify"], "no read of the silent application before the transfer")
    guard case .updated = summary.outcomes.values.first else {
      Issue.record("\(summary.outcomes)")
      return
    }
    #expect(await device.transfers == 2)
  }

  @Test func aBootloaderThatGaveUpMeansTheNextAttemptReadsTheApplicationFirst() async throws {
    let (summary, calls, device) = try await resume(bootloaderGaveUp: true)
    #expect(calls == ["update waiting", "identify", "update", "identify"], "\(calls)")
    guard case .updated = summary.outcomes.values.first else {
      Issue.record("\(summary.outcomes)")
      return
    }
    #expect(await device.transfers == 2)
  }
}
