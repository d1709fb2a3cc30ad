/// The simulator: virtual devices that speak the real protocols byte for byte (advertising AD bytes, ATT
/// PDUs, KBeacon frames and auth, Nordic DFU control point), reached through the same `Central` and
/// `ATTBearer` protocols as real hardware. See the design map's simulator section.
public enum Simulation {
  /// The `--adapter` word that selects the simulator.
  public static let adapterName = "sim"
}
