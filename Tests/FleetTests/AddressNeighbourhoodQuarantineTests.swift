import BeaconCore
import Profiles
import Synchronization
import TestClocks
import Testing

@testable import Fleet

/// `AddressNeighbourhood`'s quarantine: a device whose visit failed after it may have jumped to its bootloader
/// (at its address + 1, docs/protocols/nordic-dfu.md §2.2) keeps its neighbours out for a bounded time, unless
/// its own retry comes first; Ctrl-C ends the waits.
@Suite(.timeLimit(.minutes(1))) struct AddressNeighbourhoodQuarantineTests {
  static func a(_ last: Int) -> BluetoothAddress { BluetoothAddress(String(format: "C0:00:00:00:00:%02X", last))! }

  /// Enters `address` in a task (true once admitted).
  private func entering(_ hood: AddressNeighbourhood, _ address: BluetoothAddress) -> Task<Bool, Never> {
    Task { await hood.enter(address) }
  }

  @Test func aNeighbourWaitsOutTheQuarantine() async {
    let clock = ManualClock()
    let hood = AddressNeighbourhood(clock: clock)
    await hood.enter(Self.a(0x10))
    await hood.leave(Self.a(0x10), quarantine: .seconds(120))
    #expect(await hood.enterAtOnce(Self.a(0x11)) == .quarantined(Self.a(0x10), for: .seconds(120)))
    let neighbour = entering(hood, Self.a(0x11))
    while await hood.waiterCount == 0 { await Task.yield() }
    await clock.signal.wait { clock.sleeperCount == 1 }
    clock.advance(by: .seconds(119))
    try? await Task.sleep(for: .milliseconds(50))
    #expect(await hood.waiterCount == 1)  // not admitted yet
    #expect(await hood.quarantinedAddresses == [Self.a(0x10)])
    // The device below is not kept out: its addresses meet only 0x10's application, which is not running.
    #expect(await hood.enter(Self.a(0x0F)))
    clock.advance(by: .seconds(1))
    #expect(await neighbour.value)
    #expect(await hood.holders == [Self.a(0x0F), Self.a(0x11)])
    #expect(await hood.quarantinedAddresses.isEmpty)
  }

  @Test func theDevicesOwnRetryTakesItsHoldBack() async {
    let clock = ManualClock()
    let hood = AddressNeighbourhood(clock: clock)
    await hood.enter(Self.a(0x10))
    await hood.leave(Self.a(0x10), quarantine: .seconds(120))
    #expect(await hood.enter(Self.a(0x10)))  // at once: its own quarantine does not hold it back
    let neighbour = entering(hood, Self.a(0x11))
    while await hood.waiterCount == 0 { await Task.yield() }
    // The first quarantine's expiry, stale now, releases nothing: the retry still holds, the neighbour waits.
    await clock.signal.wait { clock.sleeperCount == 1 }
    clock.advance(by: .seconds(120))
    while await hood.expiriesHandled == 0 { await Task.yield() }
    #expect(await hood.holders == [Self.a(0x10)])
    #expect(await hood.waiterCount == 1)
    await hood.leave(Self.a(0x10))  // the retry succeeded
    #expect(await neighbour.value)
    #expect(await hood.holders == [Self.a(0x11)])
  }

  /// A failed device's retry that a neighbour below keeps out (that one failed after its jump too) keeps its
  /// own quarantine while it waits: the device above stays out until the retry is let in.
  @Test func aRetryKeptOutKeepsItsOwnQuarantine() async {
    let clock = ManualClock()
    let hood = AddressNeighbourhood(clock: clock)
    for last in [0x10, 0x0F] {
      await hood.enter(Self.a(last))
      await hood.leave(Self.a(last), quarantine: .seconds(120))
    }
    #expect(await hood.enterAtOnce(Self.a(0x10)) == .quarantined(Self.a(0x0F), for: .seconds(120)))
    #expect(await hood.enterAtOnce(Self.a(0x11)) == .quarantined(Self.a(0x10), for: .seconds(120)))
    let retry = entering(hood, Self.a(0x10))
    while await hood.waiterCount == 0 { await Task.yield() }
    #expect(await hood.enterAtOnce(Self.a(0x11)) != nil)
    #expect(await hood.enter(Self.a(0x0F)))  // 0x0F's own retry; once it holds normally, 0x10 still waits
    await hood.leave(Self.a(0x0F))
    let deadline = ContinuousClock.now + .seconds(5)
    while await hood.waiterCount > 0, ContinuousClock.now < deadline { await Task.yield() }
    await hood.stopWaiting()  // a retry still waiting (the test failed) ends here rather than hanging
    #expect(await retry.value)
    #expect(await hood.quarantinedAddresses.isEmpty)
    #expect(await hood.enterAtOnce(Self.a(0x11)) == .visited(Self.a(0x10)))
  }

  /// The device below a failed one, already waiting for it, is let in as the failed one leaves: the quarantine
  /// keeps out only the device above.
  @Test func theDeviceBelowAlreadyWaitingIsLetInAtOnce() async {
    let hood = AddressNeighbourhood(clock: ManualClock())
    await hood.enter(Self.a(0x10))
    let below = entering(hood, Self.a(0x0F))
    while await hood.waiterCount == 0 { await Task.yield() }
    await hood.leave(Self.a(0x10), quarantine: .seconds(120))
    let deadline = ContinuousClock.now + .seconds(5)
    while await hood.waiterCount > 0, ContinuousClock.now < deadline { await Task.yield() }
    await hood.stopWaiting()  // one still waiting (the test failed) ends here rather than hanging
    #expect(await below.value)
  }

  /// A waiter hears its reason change: 0x11 waits for 0x10's bootloader, then — once 0x10's retry is let in —
  /// for 0x10 being visited, until it leaves.
  @Test func aWaiterHearsItsReasonChange() async {
    let hood = AddressNeighbourhood(clock: ManualClock())
    await hood.enter(Self.a(0x10))
    await hood.leave(Self.a(0x10), quarantine: .seconds(120))
    let heard = Mutex<[AddressNeighbourhood.Block]>([])
    let above = Task { await hood.enter(Self.a(0x11)) { block in heard.withLock { $0.append(block) } } }
    while await hood.waiterCount == 0 { await Task.yield() }
    #expect(await hood.enterAtOnce(Self.a(0x10)) == nil)  // the retry
    #expect(heard.withLock { $0 } == [.visited(Self.a(0x10))])
    await hood.leave(Self.a(0x10))
    #expect(await above.value)
    #expect(heard.withLock { $0 } == [.visited(Self.a(0x10))])
  }

  @Test func stopWaitingReleasesWaitersWithoutAHold() async {
    let hood = AddressNeighbourhood()
    await hood.enter(Self.a(0x10))
    #expect(await hood.enterAtOnce(Self.a(0x11)) == .visited(Self.a(0x10)))
    #expect(await hood.enterAtOnce(Self.a(0x0F)) == .visited(Self.a(0x10)))
    let neighbour = entering(hood, Self.a(0x11))
    while await hood.waiterCount == 0 { await Task.yield() }
    await hood.stopWaiting()
    #expect(await neighbour.value == false)
    #expect(await hood.enter(Self.a(0x0F)) == false)  // no new wait begins
    #expect(await hood.holders == [Self.a(0x10)])
  }

  /// Two consecutive devices at parallelism 2: the first fails its transfer once (after the jump), is retried
  /// at once and succeeds. Its neighbour is not identified until that retry has ended — without the
  /// quarantine it came in between and, at a real site, would have reached the first one's bootloader.
  @Test func aFailedTransferKeepsTheNeighbourOutUntilItsRetry() async throws {
    let targets = [Target(address: Self.a(0x20)), Target(address: Self.a(0x21))]
    let updater = FailsOnce(failing: Self.a(0x20))
    let summary = try await AddressNeighbourhoodTests.updateTo500(targets, with: updater, parallel: 2)
    #expect(summary.outcomes.values.allSatisfy { $0.state == .verified }, "\(summary.outcomes)")
    let events = updater.events.withLock { $0 }
    let failed = try #require(events.firstIndex(of: "update 20"))
    let retried = try #require(events.lastIndex(of: "update 20"))
    #expect(retried > failed)
    // Whichever started first, nothing of the neighbour's ran between the failed transfer and its retry.
    #expect(!events[failed...retried].contains { $0.hasSuffix(" 21") }, "\(events)")
  }

  /// Ctrl-C while the device above a failed one waits out its quarantine: the wait ends at once and that
  /// device is left pending (`Campaign.requestStop` → `FirmwareWork.stopRequested`), not failed or hung.
  @Test func ctrlCEndsAQuarantineWaitLeavingTheDevicePending() async throws {
    // The quarantine never ends by itself: the manual clock is never advanced.
    let (campaign, work, updater, journal, run) = try await Self.failingFirstAtParallel1(
      [0x30, 0x31], clock: ManualClock())
    let summary = Task { await campaign.start() }
    while await work.neighbourhood.waiterCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
    await campaign.requestStop()
    let outcomes = await summary.value.outcomes
    #expect(outcomes[Self.a(0x30).description]?.state == .failed, "\(outcomes)")
    #expect(outcomes[Self.a(0x31).description]?.state == .pending, "\(outcomes)")
    #expect(!updater.events.withLock { $0 }.contains("identify 31"))
    // The journal says why it is pending (`runs show`, `--resume`).
    let row = try await journal.device(run: run, address: Self.a(0x31).description)
    #expect(
      row?.detail?.hasPrefix("stopped while waiting for \(Self.a(0x30)) to leave its bootloader") == true,
      "\(row?.detail ?? "nil")")
  }

  /// At parallelism 1, the device above a failed one waits out the quarantine off its link: an unrelated
  /// device is updated meanwhile (before, the waiting device kept the only link for the whole quarantine),
  /// the wait is announced with the device that keeps it out, no more than one link is ever in use, and once
  /// the quarantine ends the waiting device takes a link again and is updated.
  @Test func aQuarantineWaitHoldsNoLink() async throws {
    let clock = ManualClock()
    let (campaign, work, updater, _, _) = try await Self.failingFirstAtParallel1([0x40, 0x41, 0x50], clock: clock)
    let events = Task { await campaign.events.reduce(into: [CampaignEvent]()) { $0.append($1) } }
    let summary = Task { await campaign.start() }
    let deadline = ContinuousClock.now + .seconds(20)
    while !updater.updated.withLock({ $0.contains(Self.a(0x50)) }), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(updater.updated.withLock { $0.contains(Self.a(0x50)) }, "0x50 is updated while 0x41 waits")
    #expect(await work.neighbourhood.waiterCount == 1)  // 0x41, still out
    #expect(!updater.events.withLock { $0 }.contains("identify 41"))
    await clock.signal.wait { clock.sleeperCount == 1 }
    clock.advance(by: FirmwareWork.defaultBootloaderQuarantine)
    let outcomes = await summary.value.outcomes
    #expect(outcomes[Self.a(0x50).description]?.state == .verified, "\(outcomes)")
    #expect(outcomes[Self.a(0x41).description]?.state == .verified, "\(outcomes)")
    #expect(outcomes[Self.a(0x40).description]?.state == .failed, "\(outcomes)")
    #expect(await work.neighbourhood.holders.isEmpty)  // the quarantine's hold ended with it
    let all = await events.value
    let waits = all.compactMap { if case .waiting(let address, let reason) = $0 { [address, reason] } else { nil } }
    #expect(waits.map { $0[0] } == [Self.a(0x41).description], "\(waits)")
    #expect(waits.first?[1].contains("\(Self.a(0x40)) to leave its bootloader") == true, "\(waits)")
    let inUse = all.compactMap { if case .linksInUse(let n, _) = $0 { n } else { nil } }
    #expect(inUse.max() == 1, "\(inUse)")
  }

  /// A campaign at parallelism 1 over the devices with these last octets, in order, whose first device's first
  /// transfer fails for good after its jump; quarantines run on `clock`, retries do not pause.
  static func failingFirstAtParallel1(_ lastOctets: [Int], clock: ManualClock) async throws -> (
    Campaign, FirmwareWork, FailsOnce, Journal, String
  ) {
    let targets = lastOctets.map { Target(address: a($0)) }
    let journal = try Journal(path: nil)
    let run = try await journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "test", addresses: targets.map(\.address.description))
    let updater = FailsOnce(failing: targets[0].address, kind: .permanent)
    let version = FirmwareVersion("5.00")!
    var work = FirmwareWork(
      plan: FirmwarePlan(version: version, minimumBattery: nil), identifier: updater,
      route: SinglePackageRoute(FirmwareInstall(version: version, updater: updater)), batteries: [:])
    work.neighbourhood = AddressNeighbourhood(clock: clock)
    let campaign = Campaign(
      work: work, targets: targets, journal: journal, run: run, options: .init(parallel: 1), sleep: { _ in })
    return (campaign, work, updater, journal, run)
  }

  /// A resumed run quarantines each of its targets the journal left mid-transfer before any visit, and only those:
  /// a device left so outside this batch (on a shared run, a dead gateway's, taken over in a later round) would keep
  /// the device above waiting out the whole quarantine with the round stuck behind it; that device meets the
  /// bootloader instead and is left for a later round (`Campaign.Options.deferShadowed`).
  @Test func aResumeQuarantinesTheTargetsTheRunLeftMidTransfer() async throws {
    let (_, work, _, journal, run) = try await Self.failingFirstAtParallel1(
      [0x10, 0x20, 0x30, 0x40], clock: ManualClock())
    try await journal.record(run: run, address: Self.a(0x20).description, state: .working, step: "transferring")
    try await journal.record(run: run, address: Self.a(0x30).description, state: .verified, step: "transferring")
    try await journal.record(run: run, address: Self.a(0x40).description, state: .working, step: "transferring")
    await work.prepare(
      [Target(address: Self.a(0x10)), Target(address: Self.a(0x20)), Target(address: Self.a(0x30))],
      context: CampaignContext(run: run, journal: journal, emit: { _ in }))
    #expect(await work.neighbourhood.quarantinedAddresses == [Self.a(0x20)])
  }

  /// Identifies every device as 4.00 until updated; the first transfer to `failing` fails (`kind`).
  final class FailsOnce: FirmwareUpdater {
    let failing: BluetoothAddress
    let kind: FailureKind
    let events = Mutex<[String]>([])
    let updated = Mutex<Set<BluetoothAddress>>([])
    init(failing: BluetoothAddress, kind: FailureKind = .transient) {
      self.failing = failing
      self.kind = kind
    }

    struct DroppedInBootloader: Error, ClassifiedFailure {
      let failureKind: FailureKind
    }

    private func last(_ address: BluetoothAddress) -> String { String(format: "%02X", address.bytes[5]) }

    func identify(_ target: Target) async throws -> DeviceIdentity {
      events.withLock { $0.append("identify \(last(target.address))") }
      let done = updated.withLock { $0.contains(target.address) }
      return DeviceIdentity(model: "KBPro", hardware: "V1.0", firmware: FirmwareVersion(done ? "5.00" : "4.00"))
    }

    func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
      -> FirmwareTransferResult
    {
      let first = events.withLock { events in
        events.append("update \(last(target.address))")
        return events.filter { $0 == "update \(last(target.address))" }.count == 1
      }
      try await Task.sleep(for: .milliseconds(20))
      if first && target.address == failing { throw DroppedInBootloader(failureKind: kind) }
      _ = updated.withLock { $0.insert(target.address) }
      return FirmwareTransferResult()
    }
  }
}
