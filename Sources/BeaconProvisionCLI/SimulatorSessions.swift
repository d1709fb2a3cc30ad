import BeaconCore
import Foundation
import OwnThreads
import Simulator
import Synchronization

/// Brings up a simulated fleet for a command: its KBeacons start as the state directory last saw them,
/// and every applied configuration write is saved before the device acknowledges it (like a real device's
/// flash), so a later command — or a resumed run after a crash — finds the devices as they were left.
/// `sim reset` forgets the saved state.
enum SimulatorSessions {
  static func central(
    fleet: SimulatedFleet, fleetFile: String?, name: String, pace: SimulationPace, stateDirectory: String
  ) throws -> SimulatedCentral {
    let store = SimulatorStateStore(stateDirectory: stateDirectory, fleetFile: fleetFile)
    let restored: [BluetoothAddress: SimulatedKBeaconSnapshot]
    let restoredText: [BluetoothAddress: SimulatedATCommands]
    do {
      restored = try store.loadNewest()
      restoredText = try store.loadTextDevices()
    } catch { throw CLIFailure("\(error)") }
    let (central, kbeacons) = SimulatedCentral.withKBeacons(
      fleet: fleet, name: name, pace: pace, restored: restored, restoredText: restoredText)
    if fleet.gateways != nil {
      SharedSimulatorState.share(kbeacons, store: store)
    } else {
      saveChanges(of: kbeacons, to: store, restored: restored)
    }
    logWrites(of: kbeacons, to: store.writeLog)
    return central
  }

  /// Appends every write a device accepts to the fleet's shared write log (`SimulatorWriteLog`, the proof
  /// that no device was written twice), on a thread of its own (a file write blocks), before the device
  /// acknowledges it. A write that cannot be appended is undone by the device, which drops the link unanswered
  /// (`SimulatedKBeacon.record`), and the warning says so.
  static func logWrites(of kbeacons: KBeaconSimulation, to log: SimulatorWriteLog) {
    let io = SerialThread(name: "beacon-provision.simulator-write-log")
    kbeacons.setWriteObserver { write in
      await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
        io.async {
          do {
            try log.append(write)
            done.resume(returning: true)
          } catch {
            FileHandleOutput.standardError(
              "warning: could not log a simulated device's write, so the device undid it: \(error)")
            done.resume(returning: false)
          }
        }
      }
    }
  }

  /// Saves the fleet's state after every applied write. The saver reads the simulation weakly: the
  /// simulation holds the saver (its change handler), so a strong capture made a cycle that kept both, and
  /// every device of the fleet, alive for good — LeakSanitizer's finding under scripts/sanitizers. A save
  /// that finds the simulation gone writes nothing, so whoever uses the central keeps it while any of its links
  /// is open: a device kept alive by a link outlives a simulation let go, and its change (a reset after the
  /// command let go of the central) went unsaved (`KBeaconConnector.connect`).
  static func saveChanges(
    of kbeacons: KBeaconSimulation, to store: SimulatorStateStore,
    restored: [BluetoothAddress: SimulatedKBeaconSnapshot]
  ) {
    let entries = SimulatorStateEntries(restored: restored)
    let saver = SimulatorStateSaver(
      snapshot: {
        [weak kbeacons] () async -> (
          kbeacons: [BluetoothAddress: SimulatedKBeaconSnapshot], text: [BluetoothAddress: SimulatedATCommands]
        )? in
        guard let kbeacons else { return nil }
        return (await kbeacons.changedSnapshots(), await kbeacons.textDevices.snapshots())
      },
      write: { snapshots in
        guard let snapshots else { return }
        // The entries keep the changes even when this write fails: the next save writes them.
        try store.save(entries: entries.entries(after: snapshots.kbeacons), textDevices: snapshots.text)
      })
    kbeacons.setChangeHandler { await saver.save() }
  }
}

/// Serializes saves of one simulated fleet so an older snapshot never lands after a newer one; each save
/// takes its snapshot when it starts. Saves are coalesced (a group commit): a caller that finds a save
/// queued behind the one being written joins it, since that save's snapshot, taken when it starts, holds
/// the caller's change too. A save writes every device's state, so one save per write made 1,000 devices
/// cost a million device serialisations and the links queued behind them; now concurrent writes share
/// one save (`provision-bench apply-scaling`, README "Benchmarks").
actor SimulatorStateSaver<Snapshot: Sendable> {
  let snapshot: @Sendable () async -> Snapshot
  let write: @Sendable (Snapshot) throws -> Void
  /// Told each time a caller joins a queued save (tests).
  let onJoin: (@Sendable () -> Void)?

  init(
    snapshot: @escaping @Sendable () async -> Snapshot, write: @escaping @Sendable (Snapshot) throws -> Void,
    onJoin: (@Sendable () -> Void)? = nil
  ) {
    self.snapshot = snapshot
    self.write = write
    self.onJoin = onJoin
  }

  /// File writes happen on this thread, never on the cooperative pool (nor a libdispatch worker).
  private let io = SerialThread(name: "beacon-provision.simulator-state")
  /// The latest save scheduled, and whether it has taken its snapshot yet.
  private var last: Task<Void, Never>?
  private var lastStarted = true

  func save() async {
    if let last, !lastStarted {
      onJoin?()
      await last.value
      return
    }
    let previous = last
    let (snapshot, write, io) = (self.snapshot, self.write, self.io)
    lastStarted = false
    let current = Task {
      await previous?.value
      self.started()
      let value = await snapshot()
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        io.async {
          do {
            try write(value)
          } catch {
            FileHandleOutput.standardError("warning: could not save the simulated fleet's state: \(error)")
          }
          done.resume()
        }
      }
    }
    last = current
    await current.value
  }

  /// The latest save is taking its snapshot: callers from now on need a new one.
  private func started() { lastStarted = true }
}

/// The state file's entries, by device: what the fleet's state was at the start (`restored`), with each
/// save's changed devices (`KBeaconSimulation.changedSnapshots`) serialised over it — a write touches one
/// device, the file holds every device ever saved. Before, each save took every live device's snapshot
/// (an actor hop each) and compared it with the last one to find the changed few: at 1,000 devices and 16
/// links that was most of `apply`'s CPU (`provision-bench apply-scaling`, docs/benchmarks.md).
final class SimulatorStateEntries: Sendable {
  private let bytes: Mutex<[BluetoothAddress: [UInt8]]>
  /// Entries serialised so far (tests).
  let serialised = Mutex(0)

  init(restored: [BluetoothAddress: SimulatedKBeaconSnapshot]) {
    bytes = Mutex(restored.mapValues(SimulatorStateStore.entry))
    serialised.withLock { $0 = restored.count }
  }

  /// Every entry, after serialising `changed` over the ones before.
  func entries(after changed: [BluetoothAddress: SimulatedKBeaconSnapshot]) -> [BluetoothAddress: [UInt8]] {
    bytes.withLock { bytes in
      for (address, snapshot) in changed { bytes[address] = SimulatorStateStore.entry(snapshot) }
      serialised.withLock { $0 += changed.count }
      return bytes
    }
  }
}
