import BeaconCore

/// Where a device's bootloader shows up after a buttonless jump (nordic-dfu.md §2.2): the no-bond
/// bootloader advertises at the application's address with the last octet +1 (SDK `addr[0] += 1`, no
/// carry: FF wraps to 00); bond-sharing bootloaders keep the same address; either advertises the name set
/// with `02` (default `DfuTarg`). Pure.
public enum BootloaderLocator {
  /// The addresses to try, in order: last octet +1 without carry, then the same address.
  public static func candidateAddresses(for application: BluetoothAddress) -> [BluetoothAddress] {
    let raw = application.rawValue
    let incremented = BluetoothAddress(rawValue: (raw & ~0xFF) | ((raw &+ 1) & 0xFF))
    return [incremented, application]
  }

  /// The Complete (or Shortened) Local Name in advertising data, if any (AD types 0x09 / 0x08).
  public static func localName(in data: [UInt8]) -> String? {
    var i = 0
    var shortened: String?
    while i < data.count {
      let length = Int(data[i])
      guard length > 0, i + 1 + length <= data.count else { break }
      let type = data[i + 1]
      let payload = data[(i + 2)..<(i + 1 + length)]
      if type == 0x09 { return String(decoding: payload, as: UTF8.self) }
      if type == 0x08 { shortened = String(decoding: payload, as: UTF8.self) }
      i += 1 + length
    }
    return shortened
  }

  /// A per-device bootloader name of at most 20 bytes, e.g. `Dfu3FA21C` from the address's low octets.
  public static func bootloaderName(for application: BluetoothAddress) -> String {
    let b = application.bytes
    return "Dfu" + Hex.encode(b[3...])
  }
}
