import BeaconCore
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// `AddressNeighbourhood`: devices one address apart (last octet, wrapping) are never visited together,
/// because one's DFU bootloader (address + 1, docs/protocols/nordic-dfu.md §2.2) answers at the other's application address.
@Suite(.timeLimit(.minutes(1))) struct AddressNeighbourhoodTests {
  static func a(_ text: String) -> BluetoothAddress { BluetoothAddress(text)! }

  @Test func neighboursDifferByOneInTheLastOctetOnly() {
    #expect(AddressNeighbourhood.neighbours(Self.a("DD:34:02:06:D1:01"), Self.a("DD:34:02:06:D1:02")))
    #expect(AddressNeighbourhood.neighbours(Self.a("DD:34:02:06:D1:02"), Self.a("DD:34:02:06:D1:01")))
    #expect(AddressNeighbourhood.neighbours(Self.a("DD:34:02:06:D1:05"), Self.a("DD:34:02:06:D1:05")))
    // FF + 1 is 00 without carry: …:FF's bootloader is at …:00 of the same first five octets
    #expect(AddressNeighbourhood.neighbours(Self.a("DD:34:02:06:D1:FF"), Self.a("DD:34:02:06:D1:00")))
    #expect(!AddressNeighbourhood.neighbours(Self.a("DD:34:02:06:D1:FF"), Self.a("DD:34:02:06:D2:00")))
    #expect(!AddressNeighbourhood.neighbours(Self.a("DD:34:02:06:D1:01"), Self.a("DD:34:02:06:D1:03")))
    #expect(!AddressNeighbourhood.neighbours(Self.a("DD:34:02:06:D1:01"), Self.a("DD:34:02:07:D1:01")))
  }

  @Test func aNeighbourWaitsUntilTheHolderLeavesOthersDoNot() async throws {
    let hood = AddressNeighbourhood()
    await hood.enter(Self.a("C0:00:00:00:00:10"))
    await hood.enter(Self.a("C0:00:00:00:00:12"))  // two apart: not blocked
    let admitted = Mutex<[String]>([])
    let waiter = Task {
      await hood.enter(Self.a("C0:00:00:00:00:11"))  // next to both
      admitted.withLock { $0.append("11") }
    }
    try await Task.sleep(for: .milliseconds(50))
    #expect(admitted.withLock { $0 }.isEmpty)
    await hood.leave(Self.a("C0:00:00:00:00:10"))
    try await Task.sleep(for: .milliseconds(50))
    #expect(admitted.withLock { $0 }.isEmpty)  // …:12 still holds
    await hood.leave(Self.a("C0:00:00:00:00:12"))
    await waiter.value
    #expect(admitted.withLock { $0 } == ["11"])
    #expect(await hood.holders == [Self.a("C0:00:00:00:00:11")])
  }

  @Test func spreadStartsEvenLastOctetsFirst() {
    let targets = (0..<6).map { Target(address: Self.a(String(format: "C0:00:00:00:00:%02X", $0))) }
    #expect(AddressNeighbourhood.spread(targets).map { $0.address.bytes[5] } == [0, 2, 4, 1, 3, 5])
  }

  /// Records which devices are inside a visit (identify … identify) at once. The first transfers wait
  /// for one another until `together` are inside (or five seconds pass), so the count reached does not
  /// depend on how fast a loaded machine runs the first ones to their end.
  final class Overlaps: FirmwareUpdater {
    let inside = Mutex<(now: Set<BluetoothAddress>, neighboursTogether: [String], most: Int)>(([], [], 0))
    let updated = Mutex<Set<BluetoothAddress>>([])
    let together: Int
    init(together: Int) { self.together = together }
    func identify(_ target: Target) async throws -> DeviceIdentity {
      DeviceIdentity(
        model: "KBPro", hardware: "V1.0",
        firmware: FirmwareVersion(updated.withLock { $0.contains(target.address) } ? "5.00" : "4.00"))
    }
    func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
      -> FirmwareTransferResult
    {
      inside.withLock { state in
        for other in state.now where AddressNeighbourhood.neighbours(other, target.address) {
          state.neighboursTogether.append("\(other) with \(target.address)")
        }
        state.now.insert(target.address)
        state.most = max(state.most, state.now.count)
      }
      let deadline = ContinuousClock.now + .seconds(5)
      while inside.withLock({ $0.most < together }), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(5))
      }
      try await Task.sleep(for: .milliseconds(20))
      _ = inside.withLock { $0.now.remove(target.address) }
      _ = updated.withLock { $0.insert(target.address) }
      return FirmwareTransferResult()
    }
  }

  /// 12 consecutive addresses at parallelism 4: never two neighbours in their transfers at once (yet at
  /// least two devices at once) in address order, where each next device is the last one's neighbour;
  /// the spread order keeps four at once.
  @Test func aFirmwareCampaignNeverTransfersToTwoNeighboursAtOnce() async throws {
    let inOrder = (0..<12).map { Target(address: Self.a(String(format: "DD:34:02:06:D1:%02X", $0))) }
    for (targets, most) in [(inOrder, 2), (AddressNeighbourhood.spread(inOrder), 4)] {
      let updater = Overlaps(together: most)
      let summary = try await Self.updateTo500(targets, with: updater, parallel: 4)
      let state = updater.inside.withLock { $0 }
      #expect(state.neighboursTogether.isEmpty, "\(state.neighboursTogether)")
      #expect(state.most >= most)
      #expect(summary.outcomes.values.allSatisfy { $0.state == .verified }, "\(summary.outcomes)")
    }
  }

  /// A `dfu update` campaign to 5.00 over `targets` with `updater` (identify and transfer), retries at once.
  static func updateTo500(_ targets: [Target], with updater: any FirmwareUpdater, parallel: Int) async throws
    -> CampaignSummary
  {
    let journal = try Journal(path: nil)
    let run = try await journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "test", addresses: targets.map(\.address.description))
    let version = FirmwareVersion("5.00")!
    let work = FirmwareWork(
      plan: FirmwarePlan(version: version, minimumBattery: nil), identifier: updater,
      route: SinglePackageRoute(FirmwareInstall(version: version, updater: updater)), batteries: [:])
    let campaign = Campaign(
      work: work, targets: targets, journal: journal, run: run, options: .init(parallel: parallel), sleep: { _ in })
    return await campaign.start()
  }
}
