import BeaconCore

/// What a served device (`ServedDevice`) is on the air at a moment: its application, or — after a
/// buttonless `01` — its Secure DFU bootloader (docs/protocols/nordic-dfu.md §2.2), until the update activates a new
/// application or the bootloader's inactivity timeout brings the old one back. Pure: the role comes from
/// `SimulatedBootloaders`, and this says what the controller advertises for it.
///
/// Choices [I]:
/// - The bootloader answers at the application's address with the last octet +1, no carry (the SDK's
///   `addr[0] += 1`, the same `BootloaderLocator` rule the DFU client and the in-process simulator use),
///   as an LE **random** address: a controller's public address cannot change, and the SDK bootloader
///   starts from the chip's default address after its reset — a random static one on nRF52 — so clients
///   look for the +1 address as random anyway. The controller's random address is set with LE Set
///   Random Address and advertised with own address type random (`AdvertisingSettings.randomAddress`).
/// - Its advertisement is the one `SimulatedBootloaders` sends in process (`advertisingData(name:)`): Flags
///   (LE General Discoverable, no BR/EDR), a 16-bit UUID list with FE59, the Complete Local Name (the name
///   the app set with `02`, else `DfuTarg`); connectable ADV_IND without a scan response, every 25 ms (the
///   SDK's NRF_DFU_BLE_ADV_INTERVAL, 40 × 0.625 ms).
public enum ServedRole: Sendable, Equatable {
  case application
  case bootloader(name: String, address: BluetoothAddress)

  /// The role of the device served at `application` (its address as served) now.
  public static func current(of application: BluetoothAddress, in bootloaders: SimulatedBootloaders?) -> ServedRole {
    guard let running = bootloaders?.bootloader(ofApplication: application) else { return .application }
    return .bootloader(name: running.name, address: running.address)
  }

  /// The bootloader's advertising interval: 40 × 0.625 ms = 25 ms.
  public static let bootloaderInterval: UInt16 = 40

  /// The HCI settings of the bootloader role (nil for the application, whose settings follow its PDUs).
  public var bootloaderSettings: AdvertisingSettings? {
    guard case .bootloader(let name, let address) = self else { return nil }
    return AdvertisingSettings(
      connectable: true, interval: Self.bootloaderInterval,
      advertisingData: SimulatedBootloaders.advertisingData(name: name),
      randomAddress: address)
  }
}
