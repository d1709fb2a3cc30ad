import BeaconCore
import Foundation
import OwnThreads
import Simulator

/// The saved state of a simulated site that several gateway processes serve at once (a fleet file with
/// `gateways`). The devices are one set, as real beacons are, whichever gateway talks to them:
/// - a device, and the one whose bootloader would answer at its address, is read back just before each of
///   this process's links to it (`KBeaconSimulation.refresh(_:)`), in one read of the state file and the write
///   log (the log's entry when a gateway died between logging a write and saving it,
///   `SimulatorStateStore.newest`), so it is as the last gateway left it — a gateway taking over a dead one's
///   device finds that gateway's write;
/// - each scan advertises every device as the shared state holds it at the scan's start
///   (`KBeaconSimulation.setSharedAir`), so a gateway hears what another one wrote;
/// - a save (after each applied write, before its acknowledgement, as for one process) rewrites, under an
///   exclusive `flock` of `<state file>.lock`, only the devices this process changed since its last save
///   (`KBeaconSimulation.changedSnapshots`), over the file as it is now, so no process overwrites another's
///   devices with its stale copy — not even of a device it only read. A device is written by one gateway at
///   a time (its lease), so per-device last-writer-wins is exact [I].
/// Text-stream devices are kept as the single-process path keeps them (not shared).
enum SharedSimulatorState {
  static func share(_ kbeacons: KBeaconSimulation, store: SimulatorStateStore) {
    let io = SerialThread(name: "beacon-provision.simulator-shared-state")
    kbeacons.setSharedState { addresses in
      await withCheckedContinuation { continuation in
        io.async { continuation.resume(returning: withLock(store) { (try? store.newest(addresses)) ?? [:] }) }
      }
    }
    kbeacons.setSharedAir {
      await withCheckedContinuation { continuation in
        io.async { continuation.resume(returning: withLock(store) { (try? store.loadNewest()) ?? [:] }) }
      }
    }
    let saver = SimulatorStateSaver(
      snapshot: { [weak kbeacons] () async -> [BluetoothAddress: SimulatedKBeaconSnapshot]? in
        await kbeacons?.changedSnapshots()
      },
      write: { [weak kbeacons] live in
        guard let live else { return }
        do {
          try withLock(store) {
            var all = try store.load()
            all.merge(live) { _, mine in mine }
            try store.save(entries: all.mapValues(SimulatorStateStore.entry), textDevices: try store.loadTextDevices())
          }
        } catch {
          kbeacons?.markChanged(live.keys)  // the next save writes them
          throw error
        }
      })
    kbeacons.setChangeHandler { await saver.save() }
  }

  /// Runs `body` holding the `FileLock` of the state file's lock file (blocking: called on a queue). [I] A
  /// lock file that cannot be made runs `body` unlocked, as a single process would.
  static func withLock<T>(_ store: SimulatorStateStore, _ body: () throws -> T) rethrows -> T {
    let lockPath = store.path + ".lock"
    try? FileManager.default.createDirectory(
      atPath: (lockPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let lock = try? FileLock.lock(lockPath, mode: 0o600)
    defer { lock?.unlock() }
    return try body()
  }
}
