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
    /// The stay's `SimulatedBootloaderRecord.session`, when it keeps a record.
    var session: UInt64?
    /// Brought back from a record an earlier run or another process left, not entered by a jump here.
    var broughtBack: Bool
    /// The record's `lastActivity` this copy stands for: when it was brought back, or this process's own last save.
    var keptAt: Int64?
    /// This process moved the stay on (saved its progress): its own timer, not the record's, says when it ends.
    var usedHere = false
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
  /// Told after a KBeacon's bootloader saved its progress: the application's address and the firmware bytes
  /// executed (`setProgressObserver`).
  let progressObserver = Mutex<(@Sendable (BluetoothAddress, Int) async -> Void)?>(nil)
  /// Stays (`SimulatedBootloaderRecord.session`) that ended here with a new application: never brought back.
  private let completedSessions = Mutex<Set<UInt64>>([])
  /// Devices whose bootloader is being entered or brought back right now (between its record's save or read and
  /// its entry here): a bring-back meanwhile would make a copy without an entry, or overwrite the entry made.
  private let arriving = Mutex<Set<BluetoothAddress>>([])
  /// Applications an update restarted that do not answer yet, with when they start (`faults.silentAfterUpdateMs`).
  private let starting = Mutex<[BluetoothAddress: ContinuousClock.Instant]>([:])
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

  /// Application addresses of every connect that found its device in its bootloader, or its new application
  /// not started in the connect's time (nothing answers there: on a real radio, a whole connect timeout), in
  /// order (for tests).
  public var connectsToSilentApplications: [BluetoothAddress] { log.withLock { $0.silentApplications } }

  /// Records a connect to `address` while its device is in its bootloader; true when it is.
  func silentApplication(_ address: BluetoothAddress) -> Bool {
    guard isInBootloader(address) else { return false }
    noteSilentConnect(address)
    return true
  }

  /// Records a connect to `address` that nothing answered (`connectsToSilentApplications`).
  func noteSilentConnect(_ address: BluetoothAddress) { log.withLock { $0.silentApplications.append(address) } }
  /// When the application at `address`, restarted by an update, starts to advertise and accept links, while it
  /// has not yet (`DFUSection` `faults.silentAfterUpdateMs`); nil once it answers.
  public func applicationStarts(_ address: BluetoothAddress) -> ContinuousClock.Instant? {
    let now = ContinuousClock.now
    return starting.withLock { starting in
      guard let start = starting[address], start > now else {
        starting[address] = nil
        return nil
      }
      return start
    }
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
  /// With `kept`, the bootloader is a stay an earlier run left (`SimulatedBootloaderRecord`): its progress is
  /// put back, its timer already `kept.idle` old, and `session` names it; `onProgress` is told each change of
  /// its progress (`SimulatedDFUPeripheral.setProgressHandler`).
  public func enter(
    application: BluetoothAddress, name: String?, section: DFUSection?, applicationVersion: UInt32?,
    session: UInt64? = nil, kept: (command: [UInt8], image: [UInt8], idle: Duration, at: Int64)? = nil,
    onProgress: (@Sendable (_ command: [UInt8], _ image: [UInt8]) async -> Void)? = nil,
    onExit: @escaping @Sendable (SimulatedDFUPeripheral.BootloaderExit) async -> Void
  ) async {
    let section = section ?? DFUSection()
    let target = SimulatedDFUTarget(configuration: section.configuration(applicationVersion: applicationVersion))
    let peripheral = SimulatedDFUPeripheral(address: application, target: target, model: model)
    let name = name ?? "DfuTarg"
    await peripheral.setBootloaderName(name)
    let dropsAfterward = section.faults?.dropsAfterward
    let silentAfterUpdate = section.faults?.silentAfterUpdateMs.map { Duration.milliseconds($0) }
    await peripheral.setFaults(
      section.targetFaults, dropEveryDataWriteAfterwards: section.faults?.always == true || dropsAfterward != nil,
      dropsAfterward: dropsAfterward)
    if let kept { await peripheral.resume(command: kept.command, image: kept.image, idle: kept.idle) }
    if let onProgress { await peripheral.setProgressHandler(onProgress) }
    await peripheral.setExitHandler { [weak self, weak peripheral] exit in
      // This stay's entry only: a copy that outlived its entry must not take a newer stay's with it.
      self?.entries.withLock { entries in
        if let peripheral, entries[application]?.peripheral === peripheral { entries[application] = nil }
      }
      if case .newApplication = exit, let session { self?.completedSessions.withLock { _ = $0.insert(session) } }
      if case .newApplication = exit, let silentAfterUpdate {
        self?.starting.withLock { $0[application] = .now + silentAfterUpdate }
      }
      await onExit(exit)
      self?.report(.left(application: application, exit: exit))
    }
    log.withLock {
      $0.entered.append(application)
      $0.sessions.append(peripheral)
    }
    entries.withLock {
      $0[application] = Entry(
        peripheral: peripheral, bootloaderAddress: peripheral.bootloaderAddress, name: name, session: session,
        broughtBack: kept != nil, keptAt: kept?.at)
    }
    await peripheral.startInactivityWatchdog()
    report(.entered(application: application, bootloader: peripheral.bootloaderAddress, name: name))
  }

  /// Calls `observer` each time a KBeacon's bootloader has saved its progress (`SimulatedBootloaderRecord`),
  /// with the application's address and the firmware bytes executed so far (a test's stop mid-transfer).
  public func setProgressObserver(_ observer: @escaping @Sendable (BluetoothAddress, Int) async -> Void) {
    progressObserver.withLock { $0 = observer }
  }

  /// The stay (`SimulatedBootloaderRecord.session`) of the bootloader running for `application`, if it keeps one.
  func session(ofApplication application: BluetoothAddress) -> UInt64? { entries.withLock { $0[application]?.session } }

  /// Whether the stay `session` ended here with a new application.
  func completed(_ session: UInt64) -> Bool { completedSessions.withLock { $0.contains(session) } }

  /// Whether the bootloader running for `application` here was brought back from a record rather than
  /// entered by a jump in this process.
  func broughtBack(application: BluetoothAddress) -> Bool { entries.withLock { $0[application]?.broughtBack ?? false } }

  /// The record time the bootloader running for `application` here stands for (`Entry.keptAt`).
  func keptAt(application: BluetoothAddress) -> Int64? { entries.withLock { $0[application]?.keptAt } }

  /// Whether the bootloader running for `application` here is in use by this process: it saved its progress, or
  /// a link to it is open now.
  func inUse(application: BluetoothAddress) async -> Bool {
    guard let entry = entries.withLock({ $0[application] }) else { return false }
    if entry.usedHere { return true }
    return await entry.peripheral.hasLink
  }

  /// This process saved the stay's progress at `time`: its copy stands for that record now, and is its own.
  func saved(application: BluetoothAddress, session: UInt64, at time: Int64) {
    entries.withLock { entries in
      guard entries[application]?.session == session else { return }
      entries[application]?.keptAt = time
      entries[application]?.usedHere = true
    }
  }

  /// Marks the device's bootloader as arriving; false when it already is (another entry of it is under way).
  func arrive(_ application: BluetoothAddress) -> Bool { arriving.withLock { $0.insert(application).inserted } }

  /// The device's bootloader has its entry here (or will not get one).
  func arrived(_ application: BluetoothAddress) { _ = arriving.withLock { $0.remove(application) } }

  /// Lets go of the bootloader running for `application` here without an exit of its own: another run of the
  /// simulation (a gateway sharing the site) ended that stay, and this copy of it must not answer any more.
  func forget(application: BluetoothAddress) async {
    guard let entry = entries.withLock({ $0.removeValue(forKey: application) }) else { return }
    await entry.peripheral.stop()
    report(.left(application: application, exit: .timedOut))
  }
}
