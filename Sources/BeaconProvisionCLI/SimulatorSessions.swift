import BeaconCore
import Foundation
import Simulator
import Synchronization

/// The simulated fleets this process has brought up: one per (fleet, state directory, pace), shared by
/// every command in the process, restored from the state directory when first used and saved back when the
/// command ends (`BeaconProvision.runAsRoot`), so the simulated devices keep their configuration between
/// runs like real ones. `sim reset` forgets the saved state.
final class SimulatorSessions: Sendable {
  static let shared = SimulatorSessions()

  struct Session: Sendable {
    var central: SimulatedCentral
    var kbeacons: KBeaconSimulation
    var store: SimulatorStateStore
  }

  private let sessions = Mutex<[String: Session]>([:])

  func central(
    fleet: SimulatedFleet, fleetFile: String?, name: String, pace: SimulationPace, stateDirectory: String
  ) throws -> SimulatedCentral {
    let key = "\(fleetFile ?? "")|\(stateDirectory)|\(pace)"
    if let known = sessions.withLock({ $0[key] }) { return known.central }
    let store = SimulatorStateStore(stateDirectory: stateDirectory, fleetFile: fleetFile)
    let restored: [BluetoothAddress: SimulatedKBeaconSnapshot]
    do { restored = try store.load() } catch { throw CLIFailure("\(error)") }
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: fleet, name: name, pace: pace, restored: restored)
    return sessions.withLock { all in
      if let raced = all[key] { return raced.central }
      all[key] = Session(central: central, kbeacons: kbeacons, store: store)
      return central
    }
  }

  /// Writes every simulated fleet's device state to its store. Problems are reported, not fatal.
  func saveAll() async {
    for session in sessions.withLock({ Array($0.values) }) {
      do {
        try session.store.save(await session.kbeacons.snapshots())
      } catch {
        FileHandleOutput.standardError("warning: could not save the simulated fleet's state: \(error)")
      }
    }
  }
}
