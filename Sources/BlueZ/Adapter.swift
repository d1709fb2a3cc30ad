import BeaconCore
import CBlueZ
import Glibc

/// A local Bluetooth controller as the kernel lists it: libbluetooth's `hci_devinfo` (the `HCIGETDEVINFO`
/// ioctl on an HCI socket of its own).
public struct Adapter: Sendable, Hashable, Codable {
  /// The kernel's index: 0 for hci0.
  public var index: UInt16
  /// `hci0`, `hci1`, …
  public var name: String
  public var address: BluetoothAddress
  /// HCI_UP is set.
  public var isUp: Bool

  /// Every adapter the kernel knows, in index order. Throws `BlueZError` when the kernel has no Bluetooth
  /// at all (EAFNOSUPPORT) so the caller can say so; an empty list means Bluetooth exists but no adapter.
  public static func all() throws -> [Adapter] {
    // The kernel's answer to an HCI socket first: EAFNOSUPPORT (no Bluetooth) or EPERM is said as such,
    // where `hci_devinfo`, which opens one per call, would only fail.
    let fd = bp_bt_socket(Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
    guard fd >= 0 else { throw BlueZError.current("socket(AF_BLUETOOTH, BTPROTO_HCI)") }
    close(fd)
    var adapters: [Adapter] = []
    for index in 0..<UInt16(HCI_MAX_DEV) {
      var info = hci_dev_info()
      // -1 with ENODEV for an index no adapter has.
      guard hci_devinfo(Int32(index), &info) == 0 else { continue }
      let name = withUnsafeBytes(of: info.name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      let address = withUnsafeBytes(of: info.bdaddr.b) { BluetoothAddress(littleEndianBytes: Array($0)) }
      adapters.append(
        Adapter(
          index: index, name: name, address: address ?? BluetoothAddress(rawValue: 0),
          isUp: info.flags & (1 << UInt32(HCI_UP)) != 0))
    }
    return adapters
  }

  /// The adapter with this name, or the first one when `name` is nil.
  public static func named(_ name: String?) throws -> Adapter {
    let all = try all()
    if let name {
      guard let adapter = all.first(where: { $0.name == name }) else {
        throw BlueZError(errno: ENODEV, call: "hci_devinfo", adapter: name)
      }
      return adapter
    }
    guard let first = all.first else {
      throw NoAdapterError()
    }
    return first
  }
}

/// There is Bluetooth support but no adapter.
public struct NoAdapterError: Error, Sendable, CustomStringConvertible {
  public init() {}
  public var description: String {
    "no Bluetooth adapter found; plug one in, or use --adapter sim for the simulated fleet"
  }
}
