import BeaconCore

/// The name a device's bootloader is told to advertise with Set Advertisement Name (`02 <len> <name>`,
/// docs/protocols/nordic-dfu.md §2.2) before the jump, so that the client connects to its own device's bootloader and
/// never to a neighbour's: devices of one batch have consecutive addresses, and a no-bond bootloader comes
/// up at the application's address + 1 — the next device's address.
///
/// [I] The choice, kept in this one place so it is easy to change: `Dfu`, the application address's 12
/// hex digits, `-`, the attempt number (1…9999, then it wraps), e.g. `DfuDD340206D101-3` — at most 20
/// bytes, what the bootloader stores (`nrf_dfu_adv_name_t`). The whole address makes it unique to the
/// device (whichever gateway updates it); the attempt number makes it unique to this attempt, so an
/// attempt only ever accepts the bootloader it named itself. `isName(_:of:)` recognises the device's names
/// from any attempt, for a run that finds the device already waiting in its bootloader (a resumed run).
public enum BootloaderName {
  /// What every name starts with.
  public static let prefix = "Dfu"
  /// The longest name the bootloader stores.
  public static let maximumLength = ButtonlessRequest.maximumNameLength
  /// The highest attempt number: the next one is 1 again, so the name stays within `maximumLength`.
  public static let highestAttempt = 9_999

  /// The name for `device`'s bootloader in its `attempt`-th attempt (1 = the first).
  public static func make(for device: BluetoothAddress, attempt: Int) -> String {
    let number = (max(1, attempt) - 1) % highestAttempt + 1
    return stem(for: device) + String(number)
  }

  /// True when `name` is one `make(for: device, attempt:)` gives for some attempt: the attempt as `make`
  /// writes it, 1…9999 in decimal with no sign or leading zero (`-0`, `-007` and `-+7` are not ours).
  public static func isName(_ name: String, of device: BluetoothAddress) -> Bool {
    let stem = stem(for: device)
    guard name.hasPrefix(stem) else { return false }
    let number = String(name.dropFirst(stem.count))
    guard number.utf8.count <= 4, let attempt = Int(number), (1...highestAttempt).contains(attempt) else {
      return false
    }
    return String(attempt) == number
  }

  /// The device a name from `make(for:attempt:)` names, or nil for any other name (`DfuTarg`, another tool's).
  public static func device(named name: String) -> BluetoothAddress? {
    guard name.hasPrefix(prefix), let device = BluetoothAddress(name.dropFirst(prefix.count).prefix(12)) else {
      return nil
    }
    return isName(name, of: device) ? device : nil
  }

  /// `DfuDD340206D101-`: the part of the name that names the device.
  static func stem(for device: BluetoothAddress) -> String {
    prefix + Hex.encode(device.bytes).uppercased() + "-"
  }
}
