import BeaconCore
import NordicDFU

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
///
/// A visit that fails after its device may have jumped can leave the device in its bootloader, advertising
/// at address + 1 until the bootloader gives up and starts the application again. Its address then stays
/// held for a bounded quarantine (`leave(_:quarantine:)`) against the device above it — whose application
/// address is where that bootloader answers, so it would reach the bootloader and fail for nothing
/// (`BootloaderAtAddress`), spending its attempts; the device below is not kept out (its addresses meet
/// only this device's application, which is not running). The device's own retry takes its hold back at
/// once. `FirmwareWork` waits here off its link (`CampaignContext.waitOffLink`): the wait is announced with
/// what keeps the device out (`Block`), and its link permit serves other devices meanwhile. The bound is
/// `FirmwareWork.bootloaderQuarantine` ([I] 130 s: the Nordic SDK's default bootloader inactivity timeout,
/// `NRF_BL_DFU_INACTIVITY_TIMEOUT_MS` 120 s, docs/protocols/nordic-dfu.md §2.6 "drop mid-transfer", and a margin),
/// after which the bootloader has gone back to a valid application.
public actor AddressNeighbourhood {
  private var held: Set<BluetoothAddress> = []
  private var waiting: [Waiter] = []
  /// Held addresses whose visit failed past the jump, each with the number and length of its quarantine (a
  /// later quarantine of the same address, or its own retry, makes an earlier one's expiry stale).
  private var quarantined: [BluetoothAddress: (number: Int, length: Duration)] = [:]
  private var quarantines = 0
  /// Each quarantine's sleeping expiry, cancelled when the neighbourhood goes.
  private var expiries: [Int: Task<Void, Never>] = [:]
  /// Expiries that have run, stale or not (tests).
  private(set) var expiriesHandled = 0
  private var stopped = false
  private let sleep: @Sendable (Duration) async throws -> Void

  public init() { self.init(clock: ContinuousClock()) }

  /// A neighbourhood whose quarantines run on `clock` (tests: a manual clock).
  init<C: Clock<Duration>>(clock: C) { sleep = { try await clock.sleep(for: $0) } }

  deinit { for expiry in expiries.values { expiry.cancel() } }

  /// Waits until no held address neighbours `address` (or is `address`), then holds it and returns true;
  /// false, holding nothing of its own, when `stopWaiting()` ended the wait (Ctrl-C: the device stays pending).
  /// A device whose own address is quarantined takes its hold back as it enters (at once, unless a
  /// neighbour keeps it out; until then its quarantine goes on keeping the device above out).
  /// `onChange` hears each new reason the wait goes on for (the quarantined device's retry now being visited,
  /// another neighbour): what the caller announced when it began waiting may no longer hold.
  @discardableResult
  public func enter(_ address: BluetoothAddress, onChange: (@Sendable (Block) -> Void)? = nil) async -> Bool {
    guard let block = enterAtOnce(address) else { return true }
    if stopped { return false }
    return await withCheckedContinuation {
      waiting.append(Waiter(address: address, continuation: $0, block: block, onChange: onChange))
    }
  }

  /// A device waiting to enter, and what kept it out when last looked at.
  private struct Waiter {
    let address: BluetoothAddress
    let continuation: CheckedContinuation<Bool, Never>
    var block: Block
    let onChange: (@Sendable (Block) -> Void)?
  }

  /// Holds `address` and returns nil when nothing keeps it out (its own quarantine never does); otherwise
  /// changes nothing and returns what keeps it out, for the caller to say why it waits before calling `enter`.
  public func enterAtOnce(_ address: BluetoothAddress) -> Block? {
    if let block = block(of: address) { return block }
    hold(address)
    admitWaiters()  // admits no one (a hold only widens), but a waiter's reason may have changed
    return nil
  }

  /// Holds `address` for a visit; a quarantine of its own ends here (its expiry, left to run, finds it stale).
  private func hold(_ address: BluetoothAddress) {
    quarantined[address] = nil
    held.insert(address)
  }

  /// What keeps an address out of the neighbourhood.
  public enum Block: Sendable, Hashable, CustomStringConvertible {
    /// A device at this address or next to it is being visited.
    case visited(BluetoothAddress)
    /// The device below failed after its jump; its bootloader may answer at this address until the
    /// quarantine ends.
    case quarantined(BluetoothAddress, for: Duration)

    public var description: String {
      switch self {
      case .visited(let holder): "waiting for \(holder), a neighbour being visited, to finish"
      case .quarantined(let holder, let bound):
        "waiting for \(holder) to leave its bootloader, which answers at this address (up to \(bound) after it failed)"
      }
    }
  }

  /// Releases `address` and admits, in order of arrival, the waiting devices it no longer blocks. With a
  /// `quarantine`, the address stays held that long more against the device above (its device may be in its
  /// bootloader), unless its own device enters again first; the device below is let in now.
  public func leave(_ address: BluetoothAddress, quarantine: Duration? = nil) {
    if let quarantine {
      quarantines += 1
      let number = quarantines
      quarantined[address] = (number, quarantine)
      let sleep = sleep
      expiries[number] = Task { [weak self] in
        guard (try? await sleep(quarantine)) != nil else { return }
        await self?.quarantineEnded(address, number)
      }
    } else {
      held.remove(address)
    }
    admitWaiters()
  }

  /// Quarantines `address` as if its visit had just failed past the jump (`leave(_:quarantine:)`): a resumed
  /// run's device journalled mid-transfer may be waiting in its bootloader, at the address of the device
  /// above, before this process has visited it. Its own visit takes the hold back.
  public func quarantine(_ address: BluetoothAddress, for length: Duration) {
    held.insert(address)
    leave(address, quarantine: length)
  }

  /// Ctrl-C: devices waiting for a neighbour stop waiting (their `enter` returns false) and no new wait
  /// begins; holds and quarantines stay as they are.
  public func stopWaiting() {
    stopped = true
    for waiter in waiting { waiter.continuation.resume(returning: false) }
    waiting = []
  }

  private func quarantineEnded(_ address: BluetoothAddress, _ number: Int) {
    expiries[number] = nil
    expiriesHandled += 1
    guard quarantined[address]?.number == number else { return }
    quarantined[address] = nil
    held.remove(address)
    admitWaiters()
  }

  /// Admits the waiting devices nothing keeps out any more, in order of arrival, and tells each one still
  /// waiting whose reason changed (`enter(_:onChange:)`).
  private func admitWaiters() {
    var still: [Waiter] = []
    for var waiter in waiting {
      if let block = block(of: waiter.address) {
        if block != waiter.block {
          waiter.block = block
          waiter.onChange?(block)
        }
        still.append(waiter)
      } else {
        hold(waiter.address)
        waiter.continuation.resume(returning: true)
      }
    }
    waiting = still
  }

  /// Addresses held now (for tests).
  public var holders: Set<BluetoothAddress> { held }

  /// Devices waiting to enter now (for tests).
  var waiterCount: Int { waiting.count }

  /// Addresses held in quarantine now (for tests).
  var quarantinedAddresses: Set<BluetoothAddress> { Set(quarantined.keys) }

  /// The holder that is `address` or next to it — or, for a quarantined holder, answers at it from its
  /// bootloader — if any.
  private func block(of address: BluetoothAddress) -> Block? {
    for holder in held {
      if let quarantine = quarantined[holder] {
        if BootloaderLocator.noBondAddress(for: holder) == address {
          return .quarantined(holder, for: quarantine.length)
        }
      } else if Self.neighbours(holder, address) {
        return .visited(holder)
      }
    }
    return nil
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
