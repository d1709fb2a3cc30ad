import Dispatch
import Foundation
import KBeacon
import Simulator
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// The simulated fleet's state saves coalesce: writes that arrive while a save is being written share the
/// next one, whose snapshot holds all their changes, instead of one whole-fleet save each.
@Suite("Simulator state saves", .timeLimit(.minutes(1))) struct SimulatorStateSaverTests {
  /// The saver wired to a simulation does not keep it alive (they held each other, so every simulated fleet
  /// a process made leaked with all its devices; LeakSanitizer under scripts/sanitizers found it).
  @Test func savingChangesDoesNotKeepTheSimulationAlive() {
    weak var released: KBeaconSimulation?
    do {
      let kbeacons = KBeaconSimulation(fleet: SimulatedFleet(devices: []), now: { 0 })
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("saver-\(UUID().uuidString)").path
      SimulatorSessions.saveChanges(
        of: kbeacons, to: SimulatorStateStore(stateDirectory: directory, fleetFile: nil), restored: [:])
      released = kbeacons
    }
    #expect(released == nil)
  }

  @Test func writesArrivingDuringASaveShareTheNextOne() async throws {
    let log = Log()
    let firstWriteMayFinish = DispatchSemaphore(value: 0)
    let (firstWriteStarted, startedFirst) = AsyncStream.makeStream(of: Void.self)
    let (joins, joined) = AsyncStream.makeStream(of: Void.self)
    let saver = SimulatorStateSaver<Int>(
      snapshot: { log.changes.withLock { $0 } },
      write: { value in
        // Runs on the saver's own dispatch queue: blocking it here holds the first save mid-write.
        let first = log.written.withLock {
          $0.append(value)
          return $0.count == 1
        }
        if first {
          startedFirst.yield()
          firstWriteMayFinish.wait()
        }
      },
      onJoin: { joined.yield() })

    log.changes.withLock { $0 += 1 }
    let first = Task { await saver.save() }
    var started = firstWriteStarted.makeAsyncIterator()
    await started.next()
    // 20 more changes while the first save is being written: the first queues a save, 19 join it.
    let later = (0..<20).map { _ in
      Task {
        log.changes.withLock { $0 += 1 }
        await saver.save()
      }
    }
    var joinedCount = 0
    for await _ in joins {
      joinedCount += 1
      if joinedCount == 19 { break }
    }
    firstWriteMayFinish.signal()
    await first.value
    for task in later { await task.value }
    #expect(log.written.withLock { $0 } == [1, 21])
  }

  /// The changes made and the values written.
  final class Log: Sendable {
    let changes = Mutex(0)
    let written = Mutex<[Int]>([])
  }
}

/// A save serialises only the devices whose state changed since the last one (`KBeaconSimulation.changedSnapshots`
/// over the entries the fleet started from), and the file it writes loads back as the fleet's full state.
@Suite("Simulator state entries", .isolatedState, .timeLimit(.minutes(1))) struct SimulatorStateEntriesTests {
  @Test func onlyChangedDevicesAreSerialisedAgain() async throws {
    let store = SimulatorStateStore(stateDirectory: StateDirectory.resolve(nil), fleetFile: nil)
    let kbeacons = KBeaconSimulation(fleet: DemoFleet.fleet, now: { 0 })
    for device in DemoFleet.fleet.devices { _ = kbeacons.kbeacon(device.address) }
    var snapshots = await kbeacons.snapshots()
    #expect(snapshots.count > 2)
    let entries = SimulatorStateEntries(restored: snapshots)
    #expect(await kbeacons.changedSnapshots().isEmpty, "devices brought up, none changed")
    try store.save(entries: entries.entries(after: [:]))
    #expect(entries.serialised.withLock { $0 } == snapshots.count)
    #expect(try store.load() == snapshots)
    // One device drifts (a change of its own, as a write is): only it is serialised again.
    let first = try #require(snapshots.keys.sorted().first)
    var overlay = KBeaconConfiguration()
    overlay.common[CommonKey.name] = "drifted"
    await kbeacons.kbeacon(first)?.drift(overlay)
    let changed = await kbeacons.changedSnapshots()
    #expect(Array(changed.keys) == [first])
    #expect(await kbeacons.changedSnapshots().isEmpty, "taken once")
    try store.save(entries: entries.entries(after: changed))
    #expect(entries.serialised.withLock { $0 } == snapshots.count + 1)
    snapshots[first] = changed[first]
    #expect(try store.load() == snapshots)
  }
}
