import BeaconCore
import Dispatch
import Foundation
import Simulator

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
    do { restored = try store.load() } catch { throw CLIFailure("\(error)") }
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: fleet, name: name, pace: pace, restored: restored)
    let saver = SimulatorStateSaver(kbeacons: kbeacons, store: store)
    kbeacons.setChangeHandler { await saver.save() }
    return central
  }
}

/// Serializes saves of one simulated fleet so an older snapshot never lands after a newer one; each save
/// takes its snapshot when it runs.
actor SimulatorStateSaver {
  let kbeacons: KBeaconSimulation
  let store: SimulatorStateStore

  init(kbeacons: KBeaconSimulation, store: SimulatorStateStore) {
    self.kbeacons = kbeacons
    self.store = store
  }

  /// File writes happen on this queue, never on the cooperative pool.
  private let io = DispatchQueue(label: "beacon-provision.simulator-state")
  /// The save before this one: each save starts (and takes its snapshot) only after it finished, so writes
  /// land in order and every caller's change is in the save it waits for.
  private var last: Task<Void, Never>?

  func save() async {
    let previous = last
    let (kbeacons, store, io) = (self.kbeacons, self.store, self.io)
    let current = Task {
      await previous?.value
      let snapshots = await kbeacons.snapshots()
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        io.async {
          do {
            try store.save(snapshots)
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
}
