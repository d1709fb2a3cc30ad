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
  /// A Nordic Secure DFU bootloader's Control Point (in service 0xFE59; docs/protocols/nordic-dfu.md §2.1): a
  /// link that finds it and no configuration service reached a bootloader, not a KBeacon application. The
  /// application's own FE59 service has only the buttonless characteristic, never this one.
  public static let bootloaderControlPoint = BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50")!
}
