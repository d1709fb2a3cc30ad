import BeaconCore
import KBeacon
import Synchronization

/// A simulated KBeacon as a shared, live object: the pure `SimulatedKBeaconDevice` behind an actor, plus
/// the device's clock. The GATT service (FEA0) feeds it FEA1 writes and sends the notifications it returns
/// on FEA2; it survives disconnects (configuration, password, history persist; link state does not).
public actor SimulatedKBeacon {
  public nonisolated let address: BluetoothAddress
  private var device: SimulatedKBeaconDevice
  private let now: @Sendable () -> UInt32
  private var currentLink: ObjectIdentifier?
  /// Links begun to this device in this process: the current one's number names it in the write log.
  private var links = 0
  private var droppers: [ObjectIdentifier: LinkDropper] = [:]

  /// A link the device may drop, by its server connection held weakly (see `attach(_:)`).
  private struct LinkDropper {
    weak var connection: GATTServerConnection?
  }
  /// Drops every link to this device when the link itself was not `attach`ed (links opened by a
  /// `SimulatedCentral`, dropped through its `SimulatedGATTLinks`).
  private let dropLinks: (@Sendable (BluetoothAddress) async -> Void)?
  var buttonless = ButtonlessDFUResponder()
  /// Called when the buttonless DFU characteristic is told to enter the bootloader (`01`), with the name
  /// set by `02` if any. The DFU engineer connects the simulated bootloader here.
  public private(set) var bootloaderHook: (@Sendable (BluetoothAddress, String?) async -> Void)?
  /// The device's state as a write-log line carries it (`SimulatedWrite.state`): what a process killed after
  /// the line and before saving the state file leaves for the next one.
  private func loggedState() -> String { String(decoding: SimulatorStateStore.entry(snapshot()), as: UTF8.self) }

  /// The GATT table's layout revision (`SimulatedKBeacon+GATTServer`) and the servers made for this device, held
  /// weakly (a server's handlers hold the device), which `changeDatabase()` lays out anew.
  nonisolated let layout: Mutex<DatabaseLayout>

  struct DatabaseLayout: Sendable {
    var revision: Int
    var servers: [WeakServer] = []
  }

  struct WeakServer: Sendable {
    weak var server: GATTServer?
  }

  public init(
    address: BluetoothAddress, profile: KBeaconDeviceProfile, password: KBeaconPassword = .factoryDefault,
    humidityHistory: [SensorRecord] = [], busy: Bool = false, busyRequests: Int = 0, dropLinkOnWrites: Int = 0,
    faults: KBeaconFaults = KBeaconFaults(), buttonless: ButtonlessDFUResponder = ButtonlessDFUResponder(),
    configuration: KBeaconConfiguration? = nil, writes: Int = 0, databaseRevision: Int = 0,
    bootloader: SimulatedBootloaderRecord? = nil, onChange: (@Sendable () async -> Void)? = nil,
    onWrite: (@Sendable (SimulatedWrite) async -> Bool)? = nil,
    dropLinks: (@Sendable (BluetoothAddress) async -> Void)? = nil,
    bootloaderHook: (@Sendable (BluetoothAddress, String?) async -> Void)? = nil, now: @escaping @Sendable () -> UInt32
  ) {
    self.dropLinks = dropLinks
    bootloaderRecord = bootloader
    layout = Mutex(DatabaseLayout(revision: databaseRevision))
    self.onChange = onChange
    self.onWrite = onWrite
    self.bootloaderHook = bootloaderHook
    self.buttonless = buttonless
    self.address = address
    var device = SimulatedKBeaconDevice(
      address: address, profile: profile, password: password, configuration: configuration)
    for r in humidityHistory { device.history.append(r, sensor: UInt8(SensorType.humidity.rawValue)) }
    device.forceBusy = busy
    device.busyRequests = busyRequests
    device.dropLinkOnWrites = dropLinkOnWrites
    device.faults = faults
    device.configurationWrites = writes
    self.device = device
    self.now = now
  }

  /// What survives a restart of the simulation: configuration and password (see `SimulatorStateStore`).
  package func snapshot() -> SimulatedKBeaconSnapshot {
    SimulatedKBeaconSnapshot(
      configuration: device.configuration, password: device.passwordText, writes: device.configurationWrites,
      databaseRevision: databaseRevision, bootloader: bootloaderRecord)
  }

  /// Takes the state another process saved (`KBeaconSimulation.refresh(_:)`), when it is this model's.
  package func restore(_ snapshot: SimulatedKBeaconSnapshot) async {
    guard snapshot.configuration.generation == device.configuration.generation,
      let password = try? KBeaconPassword(snapshot.password)
    else { return }
    device.restore(configuration: snapshot.configuration, password: password, writes: snapshot.writes)
    bootloaderRecord = snapshot.bootloader
    if snapshot.databaseRevision != databaseRevision { await relayout(revision: snapshot.databaseRevision) }
  }

  /// Called after every applied `cfg` message (the simulator's flash write).
  private let onChange: (@Sendable () async -> Void)?
  /// Called with every write the device accepts, before `onChange` and before the acknowledgement (the
  /// shared write log, `SimulatorWriteLog`); false (not recorded) undoes the write (`record`).
  private let onWrite: (@Sendable (SimulatedWrite) async -> Bool)?

  /// The configuration changes on its own (`KBeaconDrift`): `overlay` merged over the configuration, the
  /// password and write count kept, saved like a write but not logged as one (no `cfg` came over the air).
  public func drift(_ overlay: KBeaconConfiguration) async {
    var configuration = device.configuration
    configuration.merge(overlay)
    guard let password = try? KBeaconPassword(device.passwordText) else { return }
    device.restore(configuration: configuration, password: password, writes: device.configurationWrites)
    if let onChange { await onChange() }
  }

  /// A central connected with this ATT MTU.
  public func connected(mtu: Int) { device.connected(mtu: mtu) }

  /// One FEA1 write; returns what to notify on FEA2 and whether to drop the link.
  public func write(_ bytes: [UInt8]) -> SimulatedKBeaconDevice.Output { device.receive(bytes, now: now()) }

  /// One FEA1 write from a GATT connection: a write from a new connection starts a new link state.
  /// An applied `cfg` is saved (`onChange`) before its ack goes out, as a real device writes flash before
  /// answering, so a run killed at any moment never saw a success the device then forgot.
  func write(_ bytes: [UInt8], link: ObjectIdentifier, mtu: Int) async -> SimulatedKBeaconDevice.Output {
    if currentLink != link {
      currentLink = link
      links += 1
      device.connected(mtu: mtu)
    } else {
      device.updateMTU(mtu)
    }
    // The device before this write: what a write the log cannot record is undone to (`record`).
    let saved = device
    let output = device.receive(bytes, now: now())
    if !saved.isAuthenticated && device.isAuthenticated {
      // The link authenticated (the device took its clock from it): logged too, so a test can prove a
      // gateway that lost a device never reached it (`SimulatedWrite.what`).
      guard await record(SimulatedWrite(link: links, address: address.description, what: "auth", keys: [])) else {
        return undone(to: saved)
      }
    }
    if device.configurationWrites == saved.configurationWrites, device.configuration != saved.configuration {
      // A reset command: the flash changes with no `cfg` written. Logged as a change the device accepted, without
      // its state [I]: a state line is restored only when it has more `cfg` writes than the state file, and a reset
      // adds none; the state file keeps it (a process killed before that save loses it, as before).
      let write = SimulatedWrite(link: links, address: address.description, what: "reset", keys: [])
      guard await record(write) else { return undone(to: saved) }
      await onChange?()
    } else if device.configurationWrites != saved.configurationWrites {
      let write = SimulatedWrite(
        link: links, address: address.description, what: "cfg", keys: device.lastWrittenKeys, state: loggedState())
      guard await record(write) else { return undone(to: saved) }
      await onChange?()
    }
    return output
  }

  /// A write the log could not record: the device is put back as it was before it, and drops the link unanswered.
  private func undone(to saved: SimulatedKBeaconDevice) -> SimulatedKBeaconDevice.Output {
    device = saved
    return SimulatedKBeaconDevice.Output(disconnect: true)
  }

  /// Hands `write` to the shared write log (`onWrite`); false when the log could not record it. A write the log
  /// does not hold must not have happened, or the log would undercount and two writes could pass for one: the
  /// caller puts the device back as it was before the write (`undone`) and drops the link without an answer, as
  /// a device that reset during its flash write [I: the simulator's rule for its own proof; the client sees a
  /// lost link and retries]. An image is undone without a dropped link: the DFU
  /// client saw its Execute succeed and finds the old version when it reads `ver` back.
  private func record(_ write: SimulatedWrite) async -> Bool {
    await onWrite?(write) ?? true
  }

  /// Lets the device drop a simulated link itself (after a wrong password, power off, bootloader entry).
  /// The dropper holds the link's server connection weakly (a live link's serving task holds it): the
  /// connection holds the server, whose handlers hold this device, so capturing the link strongly made a
  /// cycle that kept every link the client closed, and its server, alive for good — LeakSanitizer's
  /// finding under scripts/sanitizers. Droppers of links already gone are pruned here.
  public func attach(_ link: SimulatedLink) {
    droppers = droppers.filter { $0.value.connection != nil }
    droppers[ObjectIdentifier(link.connection)] = LinkDropper(connection: link.connection)
  }

  func dropLink(_ id: ObjectIdentifier) async {
    if currentLink == id { currentLink = nil }
    if let drop = droppers.removeValue(forKey: id) {
      await drop.connection?.disconnect()
    } else {
      await dropLinks?(address)
    }
  }

  /// Sets the "enter bootloader requested" hook (docs/protocols/nordic-dfu.md §2.2).
  public func setBootloaderHook(_ hook: (@Sendable (BluetoothAddress, String?) async -> Void)?) {
    bootloaderHook = hook
  }

  /// The device's stay in its DFU bootloader, as its flash keeps it (`SimulatedBootloaders+KBeacon`).
  private(set) var bootloaderRecord: SimulatedBootloaderRecord?

  /// Keeps `record` (the bootloader's entry, or its progress) with the device's state; saved before the
  /// bootloader answers again (`save`), unless it came from the saved state.
  func keepBootloader(_ record: SimulatedBootloaderRecord, save: Bool = true) async {
    bootloaderRecord = record
    if save, let onChange { await onChange() }
  }

  /// The device left its bootloader: for a new application (`version`, saved and logged as `installFirmware`
  /// does, the record gone with it in one save), or on its timer (nothing saved: every run reads that timeout
  /// off the record's own time, `SimulatedBootloaderRecord`).
  /// An install the write log could not record did not happen (`installFirmware`): the old application runs,
  /// its bootloader gone all the same here — though the saved state, not written, still holds the record, so
  /// another process may bring the stay back until its timer runs out (a simulator failure path only).
  func leaveBootloader(installing version: String?) async {
    bootloaderRecord = nil
    guard let version else { return }
    await installFirmware(version: version)
  }

  /// The new application a DFU installed now runs: `ver` becomes `version`, saved and logged like a
  /// configuration write.
  /// [I] The table stays as it was (the same application layout in a newer version); an update that lays
  /// the table out anew is `changeDatabase()` after this.
  @discardableResult
  public func installFirmware(version: String) async -> Bool {
    let saved = device
    device.installFirmware(version: version)
    // With the device's state, as a `cfg` line has: a process killed after this line and before it saved the
    // state file leaves a device that runs the new image, not one a next process would update again. An
    // install the log could not record did not happen (`record`): the old image runs on.
    let write = SimulatedWrite(
      link: links, address: address.description, what: "firmware", keys: ["ver"], state: loggedState())
    guard await record(write) else {
      device = saved
      return false
    }
    if let onChange { await onChange() }
    return true
  }

  /// The GATT table's layout revision: 0 as built, one more per `changeDatabase()` (an update to firmware with another table).
  public nonisolated var databaseRevision: Int { layout.withLock { $0.revision } }

  /// Lays the GATT table out anew (one more vendor characteristic before FEA0, `SimulatedKBeacon+GATTServer`): its
  /// handles move, its Database Hash changes, and live connections subscribed to Service Changed are told.
  /// Saved with the device's state, as a firmware install is.
  public func changeDatabase() async {
    await relayout(revision: databaseRevision + 1)
    if let onChange { await onChange() }
  }

  private func relayout(revision: Int) async {
    let servers = layout.withLock { layout in
      layout.revision = revision
      layout.servers = layout.servers.filter { $0.server != nil }
      return layout.servers.compactMap(\.server)
    }
    let services = services()
    for server in servers { await server.replaceServices(services) }
  }

  /// The firmware version the device reports (`ver`).
  public var firmwareVersion: String? { device.configuration.common.fields["ver"]?.stringValue }

  /// The name the last `02` buttonless command set.
  public var bootloaderName: String? { buttonless.bootloaderName }

  public var configuration: KBeaconConfiguration { device.configuration }
  public var commandLog: [Command] { device.commandLog }
  public var generation: ProtocolGeneration { device.profile.generation }

  /// Fault injection: answer every request busy while set.
  public func setForceBusy(_ busy: Bool) { device.forceBusy = busy }

  /// Transient faults: busy answers to the next `busyRequests` requests; the link dropped on the next
  /// `dropLinkOnWrites` `cfg` messages before they apply.
  public func setTransientFaults(busyRequests: Int, dropLinkOnWrites: Int) {
    device.busyRequests = busyRequests
    device.dropLinkOnWrites = dropLinkOnWrites
  }

  /// Reboots so far (`KBeaconFaults.rebootAtRequest`).
  public var reboots: Int { device.reboots }

  /// `cfg` messages applied so far.
  public var configurationWrites: Int { device.configurationWrites }

  /// Adds history records (the simulated sensor logging).
  public func record(_ records: [SensorRecord], sensor: SensorType) {
    for r in records { device.history.append(r, sensor: UInt8(sensor.rawValue)) }
  }

  /// The FEA3 payload for a trigger event, when a trigger of that type reports to the app.
  public func indication(for type: TriggerType, celsius: Double = 0, humidity: Double = 0, body: [UInt8] = [])
    -> [UInt8]?
  {
    device.indication(for: type, now: now(), celsius: celsius, humidity: humidity, body: body)
  }
}
