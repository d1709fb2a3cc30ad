import BeaconCore
import BlueZ

/// The open served links, by the device's (served) address, so a simulated device can drop its own link
/// (a KBeacon after a wrong password, a reset or bootloader entry: `KBeaconSimulation.setLinkDropper`; its
/// DFU bootloader after activating an update), as the real device would by disconnecting.
///
/// A drop ends the LE link itself (`disconnect`, e.g. `L2CAPConnection.disconnectLink()`), then closes the
/// socket: the central sees the disconnect at once, as from a device that resets, and the next link
/// — to the bootloader's address, or to the application after the update — starts on a clean controller.
public actor ServedLinks {
  private struct Open {
    var bearer: FileDescriptorBearer
    var disconnect: @Sendable () async -> Void
  }

  private var open: [BluetoothAddress: [Open]] = [:]

  public init() {}

  /// Registers a link of the device at `address`; `disconnect` ends its LE link (best effort).
  func opened(
    _ bearer: FileDescriptorBearer, for address: BluetoothAddress, disconnect: @escaping @Sendable () async -> Void = {}
  ) {
    open[address, default: []].append(Open(bearer: bearer, disconnect: disconnect))
  }

  func closed(_ bearer: FileDescriptorBearer, for address: BluetoothAddress) {
    open[address]?.removeAll { $0.bearer === bearer }
  }

  /// Ends `bearer`'s link of the device at `address` when it is still open; nothing when it already closed. A
  /// bootloader's link-replacing drop (`SimulatedDFUPeripheral.acceptLink`) ends only the link it was given:
  /// when a central vanished (killed mid-transfer), its link had already closed, and ending every link of the
  /// address ended the next central's link too, at 0 ATT PDUs, again on every retry (found by the VM tier).
  public func drop(_ bearer: FileDescriptorBearer, for address: BluetoothAddress) async {
    guard let index = open[address]?.firstIndex(where: { $0.bearer === bearer }),
      let link = open[address]?.remove(at: index)
    else { return }
    await link.disconnect()
    await link.bearer.close()
  }

  /// Ends every open link of the device at `address`.
  public func drop(_ address: BluetoothAddress) async {
    for link in open.removeValue(forKey: address) ?? [] {
      await link.disconnect()
      await link.bearer.close()
    }
  }
}
