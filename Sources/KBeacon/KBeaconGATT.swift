import BeaconCore

/// The KBeacon configuration service and its characteristics (docs/protocols/kbeacon.md §2).
public enum KBeaconGATT {
  /// Config service `0000FEA0-…`.
  public static let service = BluetoothUUID(0xFEA0)
  /// App → device: every frame (auth, JSON, hex, report acks).
  public static let write = BluetoothUUID(0xFEA1)
  /// Device → app notifications: auth replies, acks, report fragments.
  public static let notify = BluetoothUUID(0xFEA2)
  /// Device → app indications: live trigger and sensor events (optional).
  public static let indicate = BluetoothUUID(0xFEA3)
}
