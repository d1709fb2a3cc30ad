import BeaconCore
import BlueZ
import KBeacon
import NordicDFU
import Synchronization

/// The simulated KBeacons of a fleet: one `SimulatedKBeacon` per KBeacon-kind device, made on first use
/// and kept (configuration, password and history survive reconnects), each behind its own GATT server.
///
/// `server(for:)` has the shape of `SimulatedCentral`'s GATT server factory, so the simulated central
/// serves KBeacons with real behaviour; `connect(to:)` opens a simulated link (socketpair bearer) directly,
/// for callers that have no central with that factory. `advertisedDevices()` is what the fleet sends on
/// the air: each KBeacon advertises what its current configuration says (`SimulatedDevice.advertising(_:)`),
/// so a scan after an `apply` — in this process or, through the restored state, a later one — shows it.
public final class KBeaconSimulation: Sendable {
  public let fleet: SimulatedFleet
  public let model: LinkModel
  private let now: @Sendable () -> UInt32
  private let devices = Mutex<[BluetoothAddress: SimulatedKBeacon]>([:])
  private let servers = Mutex<[BluetoothAddress: GATTServer]>([:])
  private let linkDropper = Mutex<(@Sendable (BluetoothAddress) async -> Void)?>(nil)
  private let bootloaderHook = Mutex<(@Sendable (BluetoothAddress, String?) async -> Void)?>(nil)
  /// The bootloaders `hostBootloaders(in:)` hosts this fleet's in; whether the kept ones were brought back.
  let hosted = Mutex<SimulatedBootloaders?>(nil)
  let keptBootloadersBack = Mutex(false)

  /// "Enter bootloader requested" for every KBeacon of this fleet (docs/protocols/nordic-dfu.md §2.2): called with the
  /// application's address and the name set by `02`, after the `20 01 01` indication and before the link
  /// drops. Connect the simulated DFU bootloader here (e.g. `SimulatedDFUCentral.addBootloader(for:name:)`).
  /// Applies to devices made after the call; devices are made on first connect.
  public func setBootloaderHook(_ hook: @escaping @Sendable (BluetoothAddress, String?) async -> Void) {
    bootloaderHook.withLock { $0 = hook }
  }

  /// Every KBeacon's buttonless `01` brings up its Secure DFU bootloader in `bootloaders`
  /// (`SimulatedBootloaders.enter(_:device:name:)`): at address +1, with the fleet entry's `dfu` facts and
  /// faults; a completed update leaves the device reporting the new version in `ver`. Used by the
  /// simulated central and by `sim serve`, so both run the same bootloader. Sets the bootloader hook.
  public func hostBootloaders(in bootloaders: SimulatedBootloaders) {
    let fleet = fleet
    hosted.withLock { $0 = bootloaders }
    setBootloaderHook { [weak self] address, name in
      guard let kbeacon = self?.kbeacon(address), let device = fleet.devices.first(where: { $0.address == address })
      else { return }
      await bootloaders.enter(kbeacon, device: device, name: name)
    }
  }

  private func currentBootloaderHook() -> (@Sendable (BluetoothAddress, String?) async -> Void)? {
    bootloaderHook.withLock { $0 }
  }

  /// How devices drop links they did not open themselves (set by `SimulatedCentral.withKBeacons`).
  public func setLinkDropper(_ dropper: @escaping @Sendable (BluetoothAddress) async -> Void) {
    linkDropper.withLock { $0 = dropper }
  }

  /// State restored from an earlier run (`SimulatorStateStore`), by address.
  let restored: [BluetoothAddress: SimulatedKBeaconSnapshot]
  /// Where a device's state is read back from just before its first link in this process, when other
  /// processes may have changed it since the start (several gateways on one simulated site);
  /// and what it read, by address, for `kbeacon(_:)` to make the device from.
  private let sharedState = Mutex<
    (@Sendable ([BluetoothAddress]) async -> [BluetoothAddress: SimulatedKBeaconSnapshot])?
  >(nil)
  private let refreshed = Mutex<[BluetoothAddress: SimulatedKBeaconSnapshot]>([:])
  /// The devices whose state this process changed (a write, an install, a drift) since `changedSnapshots()`
  /// last took them.
  private let changed = Mutex<Set<BluetoothAddress>>([])
  /// Every device's shared state at once, read at each scan's start (`advertisedDevices()`).
  private let sharedAir = Mutex<(@Sendable () async -> [BluetoothAddress: SimulatedKBeaconSnapshot])?>(nil)
  /// The fleet's text-stream devices: served and advertised through this simulation too, so
  /// `--adapter sim` and `sim serve` offer them with no further wiring.
  public let textDevices: TextDeviceSimulation

  public init(
    fleet: SimulatedFleet, model: LinkModel = .instant, restored: [BluetoothAddress: SimulatedKBeaconSnapshot] = [:],
    restoredText: [BluetoothAddress: SimulatedATCommands] = [:], now: @escaping @Sendable () -> UInt32
  ) {
    self.restored = restored
    textDevices = TextDeviceSimulation(fleet: fleet, restored: restoredText)
    self.fleet = fleet
    self.model = model
    self.now = now
  }

  private let changeHandler = Mutex<(@Sendable () async -> Void)?>(nil)

  /// Called after any device applies a configuration write (the state store saves then).
  /// Text-stream devices' setting changes call it too.
  public func setChangeHandler(_ handler: @escaping @Sendable () async -> Void) {
    changeHandler.withLock { $0 = handler }
    textDevices.setChangeHandler(handler)
  }

  private let writeObserver = Mutex<(@Sendable (SimulatedWrite) async -> Bool)?>(nil)

  /// Called with every write a device of this fleet accepts (a KBeacon's, an AT device's setting), before it is
  /// acknowledged (the shared write log, `SimulatorWriteLog`); false (it could not be recorded) undoes the write
  /// (`SimulatedKBeacon.record`). Applies to devices made after the call; devices are made on first connect.
  public func setWriteObserver(_ observer: @escaping @Sendable (SimulatedWrite) async -> Bool) {
    writeObserver.withLock { $0 = observer }
    textDevices.setWriteObserver(observer)
  }

  /// Makes devices from state read back at their first connect (`refresh(_:)`) rather than at the start. `load`
  /// reads the devices asked for at once (one look at the shared state); a device never saved is left out.
  public func setSharedState(
    _ load: @escaping @Sendable ([BluetoothAddress]) async -> [BluetoothAddress: SimulatedKBeaconSnapshot]
  ) {
    sharedState.withLock { $0 = load }
  }

  /// Makes each scan advertise every device as the shared state holds it (`advertisedDevices()`): the air
  /// of a site is one, so a gateway hears what another gateway wrote to a device, not this process's copy
  /// from before that write. Without it, a gateway on a shared simulated site saw drift on every device
  /// another gateway had just repaired (`reconcile` on several gateways) [I: read once per scan start].
  public func setSharedAir(_ load: @escaping @Sendable () async -> [BluetoothAddress: SimulatedKBeaconSnapshot]) {
    sharedAir.withLock { $0 = load }
  }

  /// Before every link: the device is read back from the shared state, so it is as the last gateway left
  /// it. A device already brought up in this process takes the saved state too — it may have been changed
  /// by another gateway since this one last talked to it (a takeover after a `kill -9`): reading it only
  /// before the first link, a gateway that had surveyed a device wrote it again from its stale copy. A
  /// device is worked on by one gateway at a time and each write is saved before its acknowledgement, so
  /// the file holds the newest state.
  /// The device whose bootloader would answer at `address` (one below it, docs/protocols/nordic-dfu.md §2.2) is
  /// read back too: another gateway may have put it into its bootloader, or taken it out, since this one last
  /// looked (`matchBootloaders`).
  public func refresh(_ address: BluetoothAddress) async {
    guard let load = sharedState.withLock({ $0 }) else { return }
    let below = fleet.devices.lazy.filter {
      $0.kind.isKBeacon && BootloaderLocator.noBondAddress(for: $0.address) == address
    }.map(\.address)
    let candidates = [address] + below
    let snapshots = await load(candidates)
    for candidate in candidates {
      guard let snapshot = snapshots[candidate] else { continue }
      if let device = devices.withLock({ $0[candidate] }) {
        await device.restore(snapshot)
      } else {
        refreshed.withLock { $0[candidate] = snapshot }
      }
      await matchBootloaders([candidate: snapshot])
    }
  }

  /// The devices this process changed since the last call, as they are now; the call forgets them. Not
  /// every device brought up here: a device another process changed after this one only read it (a
  /// catalogue campaign's survey of a device another gateway then updates) is stale here, and saving it
  /// lost that update — the device "forgot" its new firmware, and a second gateway installed it again.
  /// Marks `addresses` changed again: a save that took them could not write them (`changedSnapshots`).
  public func markChanged(_ addresses: some Sequence<BluetoothAddress>) {
    changed.withLock { $0.formUnion(addresses) }
  }

  public func changedSnapshots() async -> [BluetoothAddress: SimulatedKBeaconSnapshot] {
    let addresses = changed.withLock { taken in
      defer { taken = [] }
      return taken
    }
    let live = devices.withLock { $0 }
    var result: [BluetoothAddress: SimulatedKBeaconSnapshot] = [:]
    for address in addresses { if let device = live[address] { result[address] = await device.snapshot() } }
    return result
  }

  private func currentChangeHandler() -> (@Sendable () async -> Void)? { changeHandler.withLock { $0 } }

  private func currentDropper() -> (@Sendable (BluetoothAddress) async -> Void)? { linkDropper.withLock { $0 } }

  /// The KBeacon at `address`, or nil when the fleet has no KBeacon there.
  public func kbeacon(_ address: BluetoothAddress) -> SimulatedKBeacon? {
    guard let entry = fleet.devices.first(where: { $0.address == address }), entry.kind.isKBeacon else { return nil }
    return devices.withLock { known in
      if let device = known[address] { return device }
      let made = Self.make(
        entry, restored: refreshed.withLock({ $0[address] }) ?? restored[address], now: now,
        onChange: { [weak self] in
          self?.changed.withLock { _ = $0.insert(address) }
          await self?.currentChangeHandler()?()
        },
        onWrite: writeObserver.withLock { $0 }, hook: currentBootloaderHook()
      ) { [weak self] address in await self?.currentDropper()?(address) }
      known[address] = made
      return made
    }
  }

  /// The GATT server for a fleet device: the KBeacon one for KBeacon kinds, the text-stream one for
  /// text-stream kinds, else GAP/GATT/DIS only.
  @Sendable public func server(for entry: SimulatedDevice) -> GATTServer {
    servers.withLock { known in
      if let server = known[entry.address] { return server }
      let server =
        kbeacon(entry.address)?.makeServer()
        ?? textDevices.server(for: entry)
        ?? GATTServer(services: GenericDeviceDatabase.standardServices(name: Self.deviceName(entry)))
      known[entry.address] = server
      return server
    }
  }

  /// Opens a simulated link to a fleet device; the device can drop it (wrong password, DFU entry).
  public func connect(to address: BluetoothAddress) async throws -> FileDescriptorBearer {
    guard let entry = fleet.devices.first(where: { $0.address == address }) else {
      throw LinkError(.unknownDevice, peer: address, detail: "not in the simulated fleet")
    }
    guard entry.connectable else { throw LinkError(.notConnectable, peer: address) }
    await driftIfDue(entry)
    let (bearer, link) = try await SimulatedLink.open(to: server(for: entry), device: address, model: model)
    await kbeacon(address)?.attach(link)
    return bearer
  }

  /// When this simulation started, and the devices that drifted since (`KBeaconDrift`: once per process).
  private let started = ContinuousClock.now
  private let drifted = Mutex<Set<BluetoothAddress>>([])

  /// Applies the entry's `drift` once its time has come: before the device is advertised or linked to, so
  /// the air and a read see it alike.
  func driftIfDue(_ entry: SimulatedDevice) async {
    guard let drift = entry.kbeacon?.drift, ContinuousClock.now - started >= .seconds(drift.after),
      drifted.withLock({ $0.insert(entry.address).inserted }), let device = kbeacon(entry.address),
      let overlay = drift.overlay(await device.configuration.generation)
    else { return }
    await device.drift(overlay)
  }

  /// Every KBeacon this simulation has brought up, as it is now.
  public func snapshots() async -> [BluetoothAddress: SimulatedKBeaconSnapshot] {
    var result = restored
    for (address, device) in devices.withLock({ $0 }) { result[address] = await device.snapshot() }
    return result
  }

  /// What a fleet device advertises now: a KBeacon from its current configuration — the running device's,
  /// else the state restored at start, else its starting configuration — through
  /// `SimulatedDevice.advertising(_:)`; any other device as its entry says. `sim serve` can advertise
  /// through this too.
  public func advertisedDevice(_ entry: SimulatedDevice) async -> SimulatedDevice {
    if entry.kind.isTextStream { return await textDevices.advertisedDevice(entry) }
    guard entry.kind.isKBeacon else { return entry }
    await driftIfDue(entry)
    var entry = entry
    if let presence = entry.presence {
      let elapsed = ContinuousClock.now - started
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      entry.presence = presence.relative(toScanAt: seconds)
    }
    return entry.advertising(await currentConfiguration(entry))
  }

  /// Every fleet device as `advertisedDevice(_:)` gives it, in fleet order (a `SimulatedCentral` scan reads
  /// this when it starts).
  public func advertisedDevices() async -> [SimulatedDevice] {
    if let load = sharedAir.withLock({ $0 }) {
      // Newer than this process's copy: written by another process since (a device this process is writing
      // holds its lease, so no other process has a newer state of it).
      let shared = await load()
      for (address, snapshot) in shared {
        if let device = devices.withLock({ $0[address] }) {
          if snapshot.writes > (await device.snapshot()).writes { await device.restore(snapshot) }
        } else {
          refreshed.withLock { $0[address] = snapshot }
        }
      }
      await matchBootloaders(shared)
    }
    var devices: [SimulatedDevice] = []
    for entry in fleet.devices { devices.append(await advertisedDevice(entry)) }
    return devices
  }

  /// The configuration of a KBeacon-kind entry as a `getPara` would read it now, without bringing the
  /// device up.
  func currentConfiguration(_ entry: SimulatedDevice) async -> KBeaconConfiguration {
    if let device = devices.withLock({ $0[entry.address] }) { return await device.configuration }
    let profile = Self.startingProfile(entry)
    if let restored = refreshed.withLock({ $0[entry.address] }) ?? restored[entry.address],
      restored.configuration.generation == profile.generation
    {
      return restored.configuration
    }
    return profile.factoryConfiguration
  }
}
