import BeaconCore
import BlueZ

/// The open served links, by the device's (served) address, so a simulated device can drop its own link
/// (a KBeacon after a wrong password, a reset or bootloader entry: `KBeaconSimulation.setLinkDropper`),
/// as the real device would by disconnecting.
public actor ServedLinks {
  private var open: [BluetoothAddress: [FileDescriptorBearer]] = [:]

  public init() {}

  func opened(_ bearer: FileDescriptorBearer, for address: BluetoothAddress) { open[address, default: []].append(bearer) }

  func closed(_ bearer: FileDescriptorBearer, for address: BluetoothAddress) {
    open[address]?.removeAll { $0 === bearer }
  }

  /// Closes every open link of the device at `address`.
  public func drop(_ address: BluetoothAddress) async {
    for bearer in open.removeValue(forKey: address) ?? [] { await bearer.close() }
  }
}
