import BeaconCore
import NordicDFU
import Synchronization

/// The Secure DFU bootloaders a simulated fleet's devices are running right now (docs/protocols/nordic-dfu.md §2.2):
/// a device told `01` on its buttonless characteristic is entered here; until it leaves, its application
/// neither advertises nor accepts links, and its bootloader — the real `SimulatedDFUTarget` behind a
/// `SimulatedDFUPeripheral` — advertises (Flags, FE59, its name; connectable) and answers at the
/// application's address with the last octet +1, no carry. It leaves on a completed update (the new
/// application runs) or on its inactivity timeout (the old application runs again). `changes()` reports
/// each entry and exit, for a device served over a real controller (`ServedDevice`), which then switches
/// what it advertises.
public final class SimulatedBootloaders: Sendable {
  struct Entry: Sendable {
    var peripheral: SimulatedDFUPeripheral
    var bootloaderAddress: BluetoothAddress
    var name: String
  }

  public let model: LinkModel
  /// Running bootloaders by application address.
  private let entries = Mutex<[BluetoothAddress: Entry]>([:])
  private let log = Mutex<
    (
      entered: [BluetoothAddress], links: [BluetoothAddress], sessions: [SimulatedDFUPeripheral],
      silentApplications: [BluetoothAddress]
    )
  >(([], [], [], []))
  private let watchers = Mutex<(next: Int, streams: [Int: AsyncStream<Change>.Continuation])>((0, [:]))

  /// A device entered its bootloader (at `bootloader`, advertising `name`) or left it.
  public enum Change: Sendable, Equatable {
    case entered(application: BluetoothAddress, bootloader: BluetoothAddress, name: String)
    case left(application: BluetoothAddress, exit: SimulatedDFUPeripheral.BootloaderExit)
  }

  /// Every entry and exit from now on, in order. An exit is reported after its `onExit` ran (a new
  /// application's version is in place).
  public func changes() -> AsyncStream<Change> {
    let (stream, continuation) = AsyncStream.makeStream(of: Change.self)
    let key = watchers.withLock { w in
      w.next += 1
      w.streams[w.next] = continuation
      return w.next
    }
    continuation.onTermination = { [weak self] _ in _ = self?.watchers.withLock { $0.streams.removeValue(forKey: key) }
    }
    return stream
  }

  private func report(_ change: Change) {
    for stream in watchers.withLock({ Array($0.streams.values) }) { stream.yield(change) }
  }

  /// The name and address of the bootloader of the device whose application is at `address`, while it runs.
  public func bootloader(ofApplication address: BluetoothAddress) -> (name: String, address: BluetoothAddress)? {
    entries.withLock { $0[address].map { ($0.name, $0.bootloaderAddress) } }
  }

  /// Every bootloader session so far, running or ended, in order of entry (for tests and reports).
  public var sessions: [SimulatedDFUPeripheral] { log.withLock { $0.sessions } }

  /// Application addresses of every bootloader entry so far, in order (for tests and reports).
  public var entered: [BluetoothAddress] { log.withLock { $0.entered } }

  /// Application addresses of every connect that found its device in its bootloader (nothing answers there: on a
  /// real radio, a whole connect timeout), in order (for tests).
  public var connectsToSilentApplications: [BluetoothAddress] { log.withLock { $0.silentApplications } }

  /// Records a connect to `address` while its device is in its bootloader; true when it is.
  func silentApplication(_ address: BluetoothAddress) -> Bool {
    guard isInBootloader(address) else { return false }
    log.withLock { $0.silentApplications.append(address) }
    return true
  }
  /// Addresses at which bootloader links were opened, in order.
  public var bootloaderLinks: [BluetoothAddress] { log.withLock { $0.links } }

  public init(model: LinkModel = .instant) { self.model = model }

  /// True while the device at application address `address` is in its bootloader.
  public func isInBootloader(_ address: BluetoothAddress) -> Bool { entries.withLock { $0[address] != nil } }

  /// The bootloader peripheral of the device whose application is at `address`, if it is running.
  public func peripheral(ofApplication address: BluetoothAddress) -> SimulatedDFUPeripheral? {
    entries.withLock { $0[address]?.peripheral }
  }

  /// The bootloader answering at `address`, if any.
  func bootloader(at address: BluetoothAddress) -> SimulatedDFUPeripheral? {
    entries.withLock { $0.values.first { $0.bootloaderAddress == address }?.peripheral }
  }

  /// What every running bootloader advertises (connectable; §2.2 Flags, FE59, Complete Local Name).
  func advertisements() -> [(address: BluetoothAddress, data: [UInt8])] {
    entries.withLock { entries in
      entries.values.sorted { $0.bootloaderAddress < $1.bootloaderAddress }.map { entry in
        (entry.bootloaderAddress, Self.advertisingData(name: entry.name))
      }
    }
  }

  /// A bootloader's advertising data (docs/protocols/nordic-dfu.md §2.2): Flags, an *incomplete* list of 16-bit Service
  /// UUIDs holding FE59 (the SDK bootloader sets `uuids_more_available`), Complete Local Name.
  public static func advertisingData(name: String) -> [UInt8] {
    ADEncoder.flags() + ADEncoder.structure(type: ADType.incompleteUUIDs16, payload: [0x59, 0xFE])
      + ADEncoder.localName(name)
  }

  /// Connects to the bootloader answering at `address`.
  func connect(to address: BluetoothAddress) async throws -> (any ATTBearer)? {
    guard let peripheral = bootloader(at: address) else { return nil }
    log.withLock { $0.links.append(address) }
    return try await peripheral.connect(to: address)
  }

  /// The device at `application` jumped to its bootloader (buttonless `01`), which advertises `name`
  /// (default `DfuTarg`). `section` gives its facts and faults; `applicationVersion` is the `fw_version` of
  /// the application it leaves. `onExit` runs when it leaves, after which the application answers again.
  public func enter(
    application: BluetoothAddress, name: String?, section: DFUSection?, applicationVersion: UInt32?,
    onExit: @escaping @Sendable (SimulatedDFUPeripheral.BootloaderExit) async -> Void
  ) async {
    let section = section ?? DFUSection()
    let target = SimulatedDFUTarget(configuration: section.configuration(applicationVersion: applicationVersion))
    let peripheral = SimulatedDFUPeripheral(address: application, target: target, model: model)
    let name = name ?? "DfuTarg"
    await peripheral.setBootloaderName(name)
    let dropsAfterward = section.faults?.dropsAfterward
    await peripheral.setFaults(
      section.targetFaults, dropEveryDataWriteAfterwards: section.faults?.always == true || dropsAfterward != nil,
      dropsAfterward: dropsAfterward)
    await peripheral.setExitHandler { [weak self] exit in
      self?.entries.withLock { _ = $0.removeValue(forKey: application) }
      await onExit(exit)
      self?.report(.left(application: application, exit: exit))
    }
    log.withLock {
      $0.entered.append(application)
      $0.sessions.append(peripheral)
    }
    entries.withLock {
      $0[application] = Entry(peripheral: peripheral, bootloaderAddress: peripheral.bootloaderAddress, name: name)
    }
    await peripheral.startInactivityWatchdog()
    report(.entered(application: application, bootloader: peripheral.bootloaderAddress, name: name))
  }

  /// The simulated KBeacon jumped (buttonless `01`, docs/protocols/nordic-dfu.md §2.2): its bootloader comes up at
  /// address +1 with the device's `dfu` facts and faults. A completed update leaves the device reporting
  /// the new application's version in `ver` (`KKMFirmwareVersion`), saved with its state; a timeout
  /// leaves it as it was. The exit handler holds the KBeacon weakly (its simulation holds it): the KBeacon's
  /// bootloader hook holds these bootloaders, whose session log holds the peripheral and so this handler,
  /// and a strong capture made a cycle that outlived the simulation (LeakSanitizer, scripts/sanitizers).
  public func enter(_ kbeacon: SimulatedKBeacon, device: SimulatedDevice, name: String?) async {
    let current = await kbeacon.firmwareVersion.flatMap(KKMFirmwareVersion.fwVersion(text:))
    await enter(application: device.address, name: name, section: device.dfu, applicationVersion: current) {
      [weak kbeacon] exit in
      if case .newApplication(let version?) = exit {
        await kbeacon?.installFirmware(version: KKMFirmwareVersion.text(fwVersion: version))
      }
    }
  }
}
