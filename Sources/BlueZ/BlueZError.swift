import Glibc

/// A failed BlueZ socket call, carrying the errno, the call, and a line that tells an operator what is
/// missing (no Bluetooth in this kernel, no permission, adapter down or busy). Modelled on swift-system's
/// `Errno`: the raw code is kept, and the common ones have names.
public struct BlueZError: Error, Sendable, Equatable, CustomStringConvertible {
  public var errno: Int32
  /// The C call that failed, e.g. `socket(AF_BLUETOOTH)` or `hci_le_set_scan_enable`.
  public var call: String
  /// The adapter involved, when there is one.
  public var adapter: String?

  public init(errno: Int32, call: String, adapter: String? = nil) {
    self.errno = errno
    self.call = call
    self.adapter = adapter
  }

  /// The current `errno` of this thread.
  static func current(_ call: String, adapter: String? = nil) -> BlueZError {
    BlueZError(errno: Glibc.errno, call: call, adapter: adapter)
  }

  /// One line for an operator: what failed and what would fix it.
  public var description: String {
    let on = adapter.map { " on \($0)" } ?? ""
    switch errno {
    case EAFNOSUPPORT:
      return "this kernel has no Bluetooth support (\(call): address family not supported); "
        + "use a machine with a Bluetooth adapter, or --adapter sim for the simulated fleet"
    case EPERM, EACCES:
      return "permission denied\(on) (\(call)): " + BluetoothCapabilities.current().hint
    case ENODEV:
      return "no such Bluetooth adapter\(on) (\(call)); list them with `beacon-provision adapters`"
    case ENETDOWN:
      return
        "the adapter\(on) is down (\(call)); bring it up with `btmgmt power on` or `hciconfig \(adapter ?? "hciX") up`"
    case EBUSY:
      return "the adapter\(on) is busy (\(call)): another program owns it; stop it or use another adapter"
    case EIO:
      return "the controller\(on) refused the command (\(call)): it may lack LE support or already be scanning"
    case EADDRINUSE:
      return "the ATT channel\(on) is taken (\(call)): bluetoothd serves GATT on every adapter it manages; "
        + "serve on an adapter bluetoothd does not use, or stop bluetoothd"
    case EALREADY, EINPROGRESS:
      return "another LE connection attempt is in progress\(on) (\(call)); controllers create one link at a time"
    case EOPNOTSUPP, EPROTONOSUPPORT:
      return "the adapter\(on) or kernel does not support this (\(call)); is it an LE (Bluetooth 4.0+) adapter?"
    case ERFKILL:
      return "the radio\(on) is blocked by rfkill (\(call)); unblock it with `rfkill unblock bluetooth`"
    case EBADF:
      return "\(call)\(on): the socket is closed"
    default:
      return "\(call)\(on) failed: \(ErrnoText.message(errno))"
    }
  }
}
