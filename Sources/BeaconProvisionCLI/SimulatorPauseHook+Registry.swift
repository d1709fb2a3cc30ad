import BeaconCore
import Fleet
import Foundation
import Simulator

/// `in-registry:ADDRESS` (`SimulatorPauseHook`): a gateway frozen inside a transaction that holds rows
/// another gateway needs. The shared registry locks a device's row (`SELECT … FOR UPDATE`) while it merges a
/// read into it, and the gateway that visits the device next records its own read there; so a gateway
/// stopped inside that transaction would stall the other's visit for as long as it stays stopped, were it not
/// for the server's bound on an idle transaction (`PostgresReconnect.defaultIdleInTransactionSeconds`).
/// `SeveralGatewaysFreezeTests` proves the bound at the process level with this stop.
extension SimulatorPauseHook {
  /// The pause for `PostgresRegistryStore.insideTransaction`: the first transaction recording a configuration
  /// read of the hook's device (a visit's, not the scan's sightings, which come before the gateway joins the
  /// run) says so on standard error and stops the process (`raise(SIGSTOP)`), once. Nil
  /// unless the central is simulated and the variable asks for `in-registry:ADDRESS`.
  static func registryPause(
    central: any Central, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> (@Sendable ([RegistryChange]) -> Void)? {
    guard let simulator = central as? SimulatedCentral,
      let hook = try SimulatorPauseHook(environment: environment, simulator: simulator), hook.insideRegistry,
      let address = hook.address
    else { return nil }
    let once = OnceFlag()
    return { changes in
      guard changes.contains(where: { $0.isConfigurationRead && BluetoothAddress($0.address)?.description == address }),
        once.take()
      else {
        return
      }
      FileHandle.standardError.write(Data("test hook: stopped inside the registry's transaction for \(address)\n".utf8))
      raise(SIGSTOP)
    }
  }
}
