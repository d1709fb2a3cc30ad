import BeaconCore

/// A controller or the kernel answered a command with a failure, or did not answer in time. The
/// description is one operator-facing line naming the likely cause (docs/protocols/linux-ble.md §4).
public enum ControllerCommandError: Error, Sendable, Hashable, CustomStringConvertible {
  /// An HCI command failed with `status` (Command Complete or Command Status).
  case hci(HCIOpcode, HCIStatus, adapter: String)
  /// A mgmt command failed with `status`.
  case mgmt(MgmtOpcode, MgmtStatus, adapter: String)
  /// No reply within the timeout.
  case timeout(command: String, adapter: String)
  /// The request itself was invalid before anything was sent (e.g. advertising data over 31 octets).
  case invalidRequest(String)

  public var description: String {
    switch self {
    case .hci(let opcode, let status, let adapter):
      var line = "\(adapter): \(opcode) failed: \(status)"
      if status == .commandDisallowed {
        line +=
          "; another host (bluetoothd?) may be scanning, advertising or connecting on this controller"
          + " — use --scan-backend mgmt while bluetoothd runs, or stop it to own the adapter"
      }
      return line
    case .mgmt(let opcode, let status, let adapter):
      var line = "\(adapter): \(opcode) failed: \(status)"
      switch status {
      case .permissionDenied:
        line += "; the management channel needs CAP_NET_ADMIN: " + BluetoothCapabilities.current().hint
      case .notPowered: line += "; power the adapter on (btmgmt --index \(adapter) power on)"
      case .busy: line += "; another discovery or operation is in progress on this adapter"
      case .invalidIndex: line += "; no such adapter (see `beacon-provision adapters`)"
      case .rfKilled: line += "; the radio is blocked by rfkill (rfkill unblock bluetooth)"
      default: break
      }
      return line
    case .timeout(let command, let adapter):
      return "\(adapter): no reply to \(command) in time; the controller may be hung (check dmesg/btmon)"
    case .invalidRequest(let text):
      return text
    }
  }
}
