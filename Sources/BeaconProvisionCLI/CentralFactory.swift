import BeaconCore
import BlueZ
import Simulator

/// The composition root: the one place that turns `--adapter` into a live or simulated `Central`.
/// - `sim` → `SimulatedCentral` over the built-in `DemoFleet`; `sim:FILE` → over the fleet file;
/// - `hciN`, or no `--adapter` (the first adapter) → the adapter is looked up with `Adapter.named`; errors
///   (no Bluetooth in the kernel, no such adapter, no permission) become one-line `CLIFailure`s.
/// Live scanning needs `BlueZCentral`, which the BlueZ module provides; until the lead wires it here the
/// live branch fails with a clear line.
enum CentralFactory {
  /// `pace` applies to the simulator only (tests pass `.unpaced`).
  static func make(_ choice: AdapterChoice?, pace: SimulationPace = .realTime) throws -> any Central {
    switch choice {
    case .simulated(let file):
      return SimulatedCentral(fleet: try fleet(file), name: choice?.description ?? Simulation.adapterName, pace: pace)
    case .live(let name):
      return try live(name)
    case nil:
      return try live(nil)
    }
  }

  /// The built-in demo fleet, or the fleet file (its errors name the file and JSON path).
  static func fleet(_ file: String?) throws -> SimulatedFleet {
    guard let file else { return DemoFleet.fleet }
    do {
      return try SimulatedFleet.load(path: file)
    } catch {
      throw CLIFailure(error.description)
    }
  }

  static func live(_ name: String?) throws -> any Central {
    let adapter: Adapter
    do {
      adapter = try Adapter.named(name)
    } catch let error as BlueZError {
      throw CLIFailure(error.description)
    } catch {
      throw CLIFailure("\(error)")
    }
    // The BlueZ engineer provides `BlueZCentral(adapter:)`; the lead replaces this line with it.
    throw CLIFailure(
      "live scanning on \(adapter.name) is not available in this build yet (it comes with the BlueZ module); "
        + "use --adapter sim for the simulated fleet")
  }
}
