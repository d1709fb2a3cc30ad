import BeaconCore
import Synchronization
import TextStream

/// The simulated text-stream devices of a fleet (kinds `tertiumReader`, `nordicUART`): one
/// `SimulatedTextDevice` per device, made on first use and kept, so an AT device's settings survive
/// reconnects; `restored` settings (from `SimulatorStateStore`) survive runs. Owned by the fleet's
/// `KBeaconSimulation`, whose GATT server factory and advertising consult it.
public final class TextDeviceSimulation: Sendable {
  public let fleet: SimulatedFleet
  private let restored: [BluetoothAddress: SimulatedATCommands]
  private let devices = Mutex<[BluetoothAddress: SimulatedTextDevice]>([:])
  private let servers = Mutex<[BluetoothAddress: GATTServer]>([:])
  private let changeHandler = Mutex<(@Sendable () async -> Void)?>(nil)
  private let writeObserver = Mutex<(@Sendable (SimulatedWrite) async -> Bool)?>(nil)

  /// The clock a device's `lateFragment` delay runs on, read when the device is made (on first use, inside
  /// the command that connects): the wall clock. A test binds a `ManualClock` here to send an answer's late
  /// tail at a moment of its choosing rather than racing the command's own windows.
  @TaskLocal public static var lateFragmentClock: any Clock<Duration> = ContinuousClock()

  public init(fleet: SimulatedFleet, restored: [BluetoothAddress: SimulatedATCommands] = [:]) {
    self.fleet = fleet
    self.restored = restored
  }

  /// Called after an AT device changes a setting.
  public func setChangeHandler(_ handler: @escaping @Sendable () async -> Void) {
    changeHandler.withLock { $0 = handler }
  }

  /// Called with every setting change an AT device accepts, before it answers (the shared write log); false
  /// undoes it. Applies to devices made after the call; devices are made on first use.
  public func setWriteObserver(_ observer: @escaping @Sendable (SimulatedWrite) async -> Bool) {
    writeObserver.withLock { $0 = observer }
  }

  /// The text-stream device at `address`, or nil when the fleet has none there.
  public func device(_ address: BluetoothAddress) -> SimulatedTextDevice? {
    guard let entry = fleet.devices.first(where: { $0.address == address }), entry.kind.isTextStream else { return nil }
    return devices.withLock { known in
      if let device = known[address] { return device }
      let made = make(entry)
      known[address] = made
      return made
    }
  }

  /// The device's GATT server, or nil for a device that is not a text-stream one.
  public func server(for entry: SimulatedDevice) -> GATTServer? {
    guard let device = device(entry.address) else { return nil }
    return servers.withLock { known in
      if let server = known[entry.address] { return server }
      let server = device.makeServer(
        name: entry.name ?? "TxRx_" + entry.address.bytes.suffix(2).map { hexByte($0) }.joined())
      known[entry.address] = server
      return server
    }
  }

  /// The settings of every AT device brought up, or restored, as they are now.
  public func snapshots() async -> [BluetoothAddress: SimulatedATCommands] {
    var result = restored
    for (address, device) in devices.withLock({ $0 }) {
      if let settings = await device.settings { result[address] = settings }
    }
    return result
  }

  /// What the device advertises now: an AT device its current name and interval.
  public func advertisedDevice(_ entry: SimulatedDevice) async -> SimulatedDevice {
    guard entry.kind == .nordicUART else { return entry }
    let settings: SimulatedATCommands
    if let device = devices.withLock({ $0[entry.address] }), let current = await device.settings {
      settings = current
    } else {
      settings = restored[entry.address] ?? Self.startingSettings(entry)
    }
    var out = entry
    out.name = settings.name
    out.intervalMs = settings.intervalMs
    return out
  }

  /// An AT device's factory settings: the entry's name (or `NUS_` and the address's low two bytes),
  /// interval and `textStream.txPower` [I].
  static func startingSettings(_ entry: SimulatedDevice) -> SimulatedATCommands {
    SimulatedATCommands(
      name: entry.name ?? "NUS_" + entry.address.bytes.suffix(2).map { hexByte($0) }.joined(),
      intervalMs: entry.intervalMs, txPower: entry.textStream?.txPower ?? 0)
  }

  private func make(_ entry: SimulatedDevice) -> SimulatedTextDevice {
    let section = entry.textStream ?? TextStreamSection()
    let profile: TextStreamProfile
    let commands: SimulatedTextDevice.Commands
    if entry.kind == .nordicUART {
      profile = .nordicUART
      commands = .at(restored[entry.address] ?? Self.startingSettings(entry))
    } else {
      profile = section.profile.flatMap(TextStreamProfile.named) ?? .tertiumTxRx
      commands = .reader(SimulatedReaderCommands(profileID: profile.id, tags: section.tags ?? 12))
    }
    return SimulatedTextDevice(
      address: entry.address, profile: profile, commands: commands,
      answerDelay: .milliseconds(section.answerDelayMs ?? 30), fragmentGap: .milliseconds(section.fragmentGapMs ?? 20),
      alwaysBusy: section.busy ?? false, dropLinkMidAnswers: section.dropLinkMidAnswer ?? 0, greeting: section.greeting,
      lateFragment: section.lateFragment.map { ($0, .milliseconds(section.lateFragmentMs ?? 500)) },
      lateFragmentClock: Self.lateFragmentClock,
      onChange: { [weak self] in await self?.currentChangeHandler()?() }, onWrite: writeObserver.withLock { $0 })
  }

  private func currentChangeHandler() -> (@Sendable () async -> Void)? { changeHandler.withLock { $0 } }
}

extension SimulatedDevice {
  /// The service a text-stream device advertises: the NUS UUID, or its reader profile's service.
  public var textStreamService: BluetoothUUID? {
    switch kind {
    case .nordicUART: TextStreamProfile.nordicUART.service
    case .tertiumReader: (textStream?.profile.flatMap(TextStreamProfile.named) ?? .tertiumTxRx).service
    default: nil
    }
  }
}
