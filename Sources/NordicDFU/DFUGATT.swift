import BeaconCore

/// Nordic Secure DFU GATT layout (docs/protocols/nordic-dfu.md §2.1).
public enum DFUGATT {
  /// Secure DFU service, SIG-assigned 0xFE59.
  public static let service = BluetoothUUID(0xFE59)
  /// Control Point: Write (with response) + Notify.
  public static let controlPoint = BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50")!
  /// Packet: Write Without Response.
  public static let packet = BluetoothUUID("8EC90002-F315-4F60-9FB8-838830DAEA50")!
  /// Buttonless entry without bond sharing (SDK 13+): Write + Indicate, in the application's FE59 service.
  public static let buttonlessWithoutBonds = BluetoothUUID("8EC90003-F315-4F60-9FB8-838830DAEA50")!
  /// Buttonless entry with bond sharing (SDK 14+).
  public static let buttonlessWithBonds = BluetoothUUID("8EC90004-F315-4F60-9FB8-838830DAEA50")!
}
