import BeaconCore
import BlueZ
import Foundation
import Simulator

/// The composition root: the one place that turns `--adapter` into a live or simulated `Central`.
/// - `sim` → `SimulatedCentral` over the built-in `DemoFleet`; `sim:FILE` → over the fleet file;
/// - `hciN`, or no `--adapter` (the first adapter) → the adapter is looked up with `Adapter.named`; errors
///   (no Bluetooth in the kernel, no such adapter, no permission) become one-line `CLIFailure`s.
/// Live adapters get a `BlueZCentral`, scanning through the backend `--scan-backend` names (auto: the
/// kernel's management channel when it answers, else raw HCI).
enum CentralFactory {
  /// `pace` applies to the simulator only (tests pass `.unpaced`); `scanBackend` to live adapters only.
  /// The work behind it (fleet file and saved state reads, the adapter lookup's ioctls) blocks, so it runs
  /// through `BlockingIO`.
  /// `gateway` (`--gateway`) picks a gateway's view of a simulated site (`SimulatedFleet.view(for:)`).
  static func make(
    _ choice: AdapterChoice?, scanBackend: ScanBackend = .auto, pace: SimulationPace = .realTime,
    stateDirectory: String? = nil,
    gateway: String? = nil
  ) async throws -> any Central {
    let directory = StateDirectory.resolve(stateDirectory)  // the task-local override is read here, not on the queue
    return try await BlockingIO.run {
      try makeBlocking(choice, scanBackend: scanBackend, pace: pace, stateDirectory: directory, gateway: gateway)
    }
  }

  private static func makeBlocking(
    _ choice: AdapterChoice?, scanBackend: ScanBackend, pace: SimulationPace, stateDirectory: String, gateway: String?
  ) throws -> any Central {
    switch choice {
    case .simulated(let file):
      // KBeacon-kind devices get the simulated KBeacon's GATT server (FEA0 protocol, buttonless DFU); their
      // state persists in the state directory between runs.
      var fleet = try fleet(file)
      if let gateway, fleet.gateways != nil {
        do { fleet = try fleet.view(for: gateway) } catch { throw CLIFailure("\(file ?? "fleet"): \(error)") }
      }
      return try SimulatorSessions.central(
        fleet: fleet, fleetFile: file, name: choice?.description ?? Simulation.adapterName, pace: pace,
        stateDirectory: stateDirectory)
    case .live(let name):
      return try live(name, scanBackend: scanBackend)
    case nil:
      return try live(nil, scanBackend: scanBackend)
    }
  }

  /// The built-in demo fleet, or the fleet file (its errors name the file and JSON path).
  static func fleet(_ file: String?) throws -> SimulatedFleet {
    guard let file else { return DemoFleet.fleet }
    let data = try InputFile.read(file, limit: .fleet)
    do {
      return try SimulatedFleet.decode(data, file: file)
    } catch {
      throw CLIFailure(error.description)
    }
  }

  static func live(_ name: String?, scanBackend: ScanBackend = .auto) throws -> any Central {
    let adapter: Adapter
    do {
      adapter = try Adapter.named(name)
    } catch let error as BlueZError {
      throw CLIFailure(error.description)
    } catch {
      throw CLIFailure("\(error)")
    }
    return BlueZCentral(adapter: adapter.name, scanBackend: scanBackend)
  }
}
