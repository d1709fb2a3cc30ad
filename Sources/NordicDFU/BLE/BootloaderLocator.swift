import BeaconCore

/// Where a device's bootloader shows up after a buttonless jump (docs/protocols/nordic-dfu.md §2.2): the no-bond
/// bootloader advertises at the application's address with the last octet +1 (SDK `addr[0] += 1`, no
/// carry: FF wraps to 00); bond-sharing bootloaders keep the same address; either advertises the name set
/// with `02` (default `DfuTarg`). Pure. `BLEDFULinkFactory` connects only to the first candidate (+1): it
/// drives the no-bond characteristic (8EC90003), and at the device's own address a bootloader is the
/// previous address's.
public enum BootloaderLocator {
  /// The addresses to try, in order: last octet +1 without carry, then the same address.
  public static func candidateAddresses(for application: BluetoothAddress) -> [BluetoothAddress] {
    [noBondAddress(for: application), application]
  }

  /// Where a no-bond bootloader entered from `application` advertises: the last octet +1, FF wrapping to 00
  /// without a carry.
  public static func noBondAddress(for application: BluetoothAddress) -> BluetoothAddress {
    let raw = application.rawValue
    return BluetoothAddress(rawValue: (raw & ~0xFF) | ((raw &+ 1) & 0xFF))
  }

  /// Where to connect, in order, for an application at `application` of type `type`: the last octet +1
  /// as an LE **random** address, then the application's own address and type (bond sharing).
  ///
  /// [I] Why random whatever the application's type: the SDK bootloader starts from the address the
  /// SoftDevice has after its reset — the chip's random static address on nRF52 (KKM's KBeacons advertise
  /// with it, e.g. DD:34:…) — and `gap_address_change` adds one keeping that type; a device served over a
  /// real controller in the VM tier (`sim serve`) keeps the controller's public address for its
  /// application and must use a random one for the +1 bootloader. A Linux LE connect needs the type up
  /// front (the kernel's connect scan matches address and type), and a wrong type costs a whole connect
  /// timeout, so the likely one comes first; the by-name scan reports the real type as a last resort.
  public static func candidates(for application: BluetoothAddress, type: AddressType) -> [Candidate] {
    let addresses = candidateAddresses(for: application)
    return [Candidate(address: addresses[0], type: .random), Candidate(address: addresses[1], type: type)]
  }

  /// A place a bootloader may answer: an address and the type to connect with.
  public struct Candidate: Sendable, Hashable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var type: AddressType

    public init(address: BluetoothAddress, type: AddressType) {
      self.address = address
      self.type = type
    }

    /// `C0:11:22:33:44:00 (random)`
    public var description: String { "\(address) (\(type))" }
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

  /// Whether advertising data lists the Secure DFU service FE59 among its 16-bit service UUIDs (AD types
  /// 0x02 / 0x03), as a bootloader's does (§2.2: Flags, FE59, Complete Local Name).
  public static func advertisesDFUService(_ data: [UInt8]) -> Bool {
    var i = 0
    while i < data.count {
      let length = Int(data[i])
      guard length > 0, i + 1 + length <= data.count else { break }
      if data[i + 1] == 0x02 || data[i + 1] == 0x03 {
        var j = i + 2
        while j + 1 < i + 1 + length {
          if data[j] == 0x59 && data[j + 1] == 0xFE { return true }
          j += 2
        }
      }
      i += 1 + length
    }
    return false
  }
}
