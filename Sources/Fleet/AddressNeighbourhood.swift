import BeaconCore

/// Keeps devices whose addresses are neighbours out of a firmware campaign's flight together
/// (docs/protocols/nordic-dfu.md §2.2). A no-bond Secure DFU bootloader comes up at its application's address with the
/// last octet +1 (no carry), and devices of one batch have consecutive addresses: while a device is in its
/// bootloader, its bootloader and the next device's application answer at one address, and a link to
/// either may reach the other. So a device holds its address here for its whole visit (identify, jump,
/// transfer, read `ver` back) and a device one above or below it — whose application or bootloader
/// address would collide with its own — waits until it leaves. Naming the bootloader
/// (`BootloaderName`) makes the transfer itself safe; this keeps the reads around it, and SDK 13 devices
/// that cannot name their bootloader, safe too.
///
/// [I] Neighbours are addresses whose first five octets are equal and whose last octets differ by 1
/// modulo 256 (the bootloader's +1 wraps FF to 00). Only devices in this campaign are held; one merely
/// heard is not updated by it, and a device that cannot name its bootloader checks that nothing
/// advertised as a bootloader at its address + 1 before it jumped (`BLEDFULinkFactory`).
public actor AddressNeighbourhood {
  private var held: Set<BluetoothAddress> = []
  private var waiting: [(address: BluetoothAddress, continuation: CheckedContinuation<Void, Never>)] = []

  public init() {}

  /// Waits until no held address neighbours `address` (or is `address`), then holds it.
  public func enter(_ address: BluetoothAddress) async {
    if isFree(address) {
      held.insert(address)
      return
    }
    await withCheckedContinuation { waiting.append((address, $0)) }
  }

  /// Releases `address` and admits, in order of arrival, the waiting devices it no longer blocks.
  public func leave(_ address: BluetoothAddress) {
    held.remove(address)
    var still: [(address: BluetoothAddress, continuation: CheckedContinuation<Void, Never>)] = []
    for waiter in waiting {
      if isFree(waiter.address) {
        held.insert(waiter.address)
        waiter.continuation.resume()
      } else {
        still.append(waiter)
      }
    }
    waiting = still
  }

  /// Addresses held now (for tests).
  public var holders: Set<BluetoothAddress> { held }

  private func isFree(_ address: BluetoothAddress) -> Bool {
    !held.contains { Self.neighbours($0, address) }
  }

  /// True when the two addresses are one apart in the last octet (wrapping) with the rest equal — the
  /// one's bootloader answers at the other's application address — or equal.
  public static func neighbours(_ a: BluetoothAddress, _ b: BluetoothAddress) -> Bool {
    guard a.rawValue >> 8 == b.rawValue >> 8 else { return false }
    let difference = UInt8(truncatingIfNeeded: a.rawValue &- b.rawValue)
    return difference == 0 || difference == 1 || difference == 0xFF
  }

  /// `targets` reordered so that devices started one after another are rarely neighbours: those whose last
  /// octet is even first, then the odd ones, each group in its original order. A consecutive batch then
  /// runs at full parallelism, and only the devices where the two groups meet wait for a neighbour.
  public static func spread(_ targets: [Target]) -> [Target] {
    targets.filter { $0.address.rawValue & 1 == 0 } + targets.filter { $0.address.rawValue & 1 == 1 }
  }
}
