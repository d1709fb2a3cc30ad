import BeaconCore
import Synchronization

/// The simulated radio: a `Central` whose scan delivers the fleet's advertising as raw AD bytes (so the
/// real parser runs) — each device as `advertisedDevices` gives it when the scan starts — at each device's
/// interval, with scan responses only when scanning actively. Time is the `pace`: real time (optionally sped
/// up) for the CLI, `.unpaced` for tests, where reports carry simulated timestamps and arrive as fast as they
/// are consumed (the stream is pulled, so nothing piles up).
public final class SimulatedCentral: Central {
  public let name: String
  public let fleet: SimulatedFleet
  public let pace: SimulationPace
  /// The GATT side of this simulated adapter: device servers, link model, link cap, faults.
  public let gattLinks: SimulatedGATTLinks
  /// Makes a device's GATT server on its first connect. Default: `GenericDeviceDatabase.server(for:)`;
  /// device kinds with real behaviour (KBeacon, DFU) plug theirs in here.
  public let gattServerFactory: @Sendable (SimulatedDevice) -> GATTServer
  /// Devices now in their DFU bootloader: their applications are silent and their bootloaders advertise
  /// and answer at the application address +1 (docs/protocols/nordic-dfu.md §2.2).
  public let bootloaders: SimulatedBootloaders
  /// The devices as they advertise now, read when each scan starts. Default: the fleet's entries as they
  /// are; `withKBeacons` plugs in `KBeaconSimulation.advertisedDevices()` so KBeacons advertise their
  /// current configuration.
  public let advertisedDevices: @Sendable () async -> [SimulatedDevice]
  /// Awaited before every connect, to a device or a bootloader (`withKBeacons`: a KBeacon several gateway
  /// processes share is read back from the shared state first, `KBeaconSimulation.refresh(_:)`).
  public let beforeConnect: (@Sendable (BluetoothAddress) async -> Void)?
  /// Awaited before every scan and every connect (`withKBeacons`: the bootloader stays an earlier run left in
  /// the saved state come back, once, `KBeaconSimulation.bringBackKeptBootloaders()`).
  public let prepare: (@Sendable () async -> Void)?

  /// `gattLinks` defaults to the default `LinkModel` in real time and `LinkModel.instant` when `.unpaced`.
  public init(
    fleet: SimulatedFleet, name: String = Simulation.adapterName, pace: SimulationPace = .realTime,
    gattLinks: SimulatedGATTLinks? = nil,
    gattServerFactory: @escaping @Sendable (SimulatedDevice) -> GATTServer = GenericDeviceDatabase.server(for:),
    bootloaders: SimulatedBootloaders? = nil, advertisedDevices: (@Sendable () async -> [SimulatedDevice])? = nil,
    beforeConnect: (@Sendable (BluetoothAddress) async -> Void)? = nil, prepare: (@Sendable () async -> Void)? = nil
  ) {
    self.beforeConnect = beforeConnect
    self.prepare = prepare
    self.advertisedDevices = advertisedDevices ?? { [devices = fleet.devices] in devices }
    self.bootloaders = bootloaders ?? SimulatedBootloaders(model: pace == .unpaced ? .instant : LinkModel())
    self.fleet = fleet
    self.name = name
    self.pace = pace
    self.gattLinks = gattLinks ?? SimulatedGATTLinks(model: pace == .unpaced ? .instant : LinkModel())
    self.gattServerFactory = gattServerFactory
  }

  /// Unpaced, scans run on the simulated time line only (`Central.scansInRealTime`).
  public var scansInRealTime: Bool { pace != .unpaced }

  public func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    let timeline = Timeline(devices: advertisedDevices, active: parameters.active)
    let start = ContinuousClock.now
    let pace = self.pace
    let bootloaders = self.bootloaders
    let prepare = self.prepare
    let prepared = Mutex(false)
    return AsyncThrowingStream(unfolding: {
      if let prepare,
        prepared.withLock({ done in
          defer { done = true }
          return !done
        })
      {
        await prepare()
      }
      while true {
        if let queued = await timeline.queued() { return queued.report(start: start) }
        guard let (next, yieldFirst) = await timeline.next() else { return nil }
        // Unpaced, a pull never suspends on its own: a consumer that reads until a wall-clock timeout (a task
        // racing a sleep) holds its cooperative thread until that timeout's task runs — and with every thread of
        // the pool (2 on 2 cores) held so, it never does; a test process stalled so under AddressSanitizer.
        // Every `Timeline.yieldEvery` reports the pull gives the thread up.
        if yieldFirst { await Task.yield() }
        try await pace.wait(until: next.offset, from: start)
        // A device in its bootloader: the application is silent, the bootloader advertises every 100 ms.
        await timeline.addBootloaderReports(bootloaders.advertisements(), at: next.offset)
        if bootloaders.isInBootloader(next.address) {
          // While every advertiser is in its bootloader (which leaves in real time, when its DFU ends) this
          // loop would skip report after report without suspending — unpaced, or paced but behind the wall
          // clock — holding a cooperative thread at full speed for as long as its consumer waits (seen as a
          // whole test process stalled on 2 cores). A skipped report gives up the thread for 1 ms.
          try await Task.sleep(for: .milliseconds(1))
          continue
        }
        return next.report(start: start)
      }
    })
  }

  /// Opens a simulated LE link: the device end of a `socketpair(AF_UNIX, SOCK_SEQPACKET)` is served by the
  /// device's GATT server (made on first connect with `gattServerFactory`, kept across reconnects), the
  /// returned bearer is the same `FileDescriptorBearer` used on live L2CAP sockets. The link model is
  /// `gattLinks.model`; at most `gattLinks.capacity.limit` links are open at once (else
  /// `LinkError(.tooManyLinks)`). A simulated connect completes at once, except to an application an update
  /// restarted that has not started yet (`SimulatedBootloaders.applicationStarts`), which it waits for up to
  /// `timeout`. A connect to a random-address device as public fails with `.connectTimeout`, as on a real radio.
  public func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer
  {
    await prepare?()
    // On a shared site, the device and the one whose bootloader would answer here are read back first.
    await beforeConnect?(address)
    // A running bootloader answers first: on neighbouring addresses (…:00 and …:01) it shadows the
    // neighbour's application, as two advertisers on one address would confuse a real radio.
    if let bearer = try await bootloaders.connect(to: address) { return bearer }
    if bootloaders.silentApplication(address) {
      throw LinkError(.connectTimeout, peer: address, detail: "nothing answers: the device is in its DFU bootloader")
    }
    if let starts = bootloaders.applicationStarts(address) {
      // An application an update restarted answers once it has started: a real radio waits for its first
      // advertisement, up to the connect's timeout.
      let remaining = ContinuousClock.now.duration(to: starts)
      guard remaining <= timeout else {
        try await Task.sleep(for: timeout)
        bootloaders.noteSilentConnect(address)
        throw LinkError(
          .connectTimeout, peer: address, detail: "nothing answers: the device's new application is still starting")
      }
      try await Task.sleep(for: remaining)
    }
    guard let device = fleet.devices.first(where: { $0.address == address }) else {
      throw LinkError(.unknownDevice, peer: address, detail: "not in the simulated fleet")
    }
    // A link is made to an address and its type (Core v5.4 Vol 6 Part B §1.3): like the kernel, whose accept
    // list then never matches the device's advertising, a connect to a random-address device as public only
    // times out. [I] The reverse (a public device asked for as random) is let through: `dfu update --resume`
    // addresses a device it has not heard (silent in its bootloader) as random, the KKM default, and the
    // public-address test fleets rely on that; a real radio would time out there too.
    guard device.addressType == .public || type == .random else {
      throw LinkError(
        .connectTimeout, peer: address,
        detail: "nothing advertises as \(address) (\(type)); the device's address is \(device.addressType)")
    }
    guard device.connectable else {
      throw LinkError(
        .notConnectable, peer: address, detail: "this \(device.kind.rawValue) device does not accept connections")
    }
    let factory = gattServerFactory
    return try await gattLinks.open(to: address) { _ in factory(device) }
  }

  /// Holds one scan's schedule so the pulled stream can advance it from any task. The schedule is made on
  /// the first pull, from the devices as they advertise then.
  private actor Timeline {
    let devices: @Sendable () async -> [SimulatedDevice]
    let active: Bool
    var schedule: AdvertisingSchedule?
    var pending: [AdvertisingSchedule.Report] = []
    var lastBootloaderOffset: Duration? = nil
    /// Reports pulled so far; every `yieldEvery`-th is delivered after a `Task.yield()`.
    var pulled = 0
    static let yieldEvery = 64
    init(devices: @escaping @Sendable () async -> [SimulatedDevice], active: Bool) {
      self.devices = devices
      self.active = active
    }

    /// The next report, and whether the pull should give up its thread before delivering it.
    func next() async -> (AdvertisingSchedule.Report, yieldFirst: Bool)? {
      if schedule == nil {
        let made = AdvertisingSchedule(devices: await devices(), active: active)
        if schedule == nil { schedule = made }
      }
      guard let report = schedule?.next() else { return nil }
      pulled += 1
      return (report, pulled % Self.yieldEvery == 0)
    }
    func queued() -> AdvertisingSchedule.Report? { pending.isEmpty ? nil : pending.removeFirst() }

    func addBootloaderReports(_ adverts: [(address: BluetoothAddress, data: [UInt8])], at offset: Duration) {
      guard !adverts.isEmpty else { return }
      if let last = lastBootloaderOffset, offset - last < .milliseconds(100) { return }
      lastBootloaderOffset = offset
      pending += adverts.map {
        AdvertisingSchedule.Report(
          offset: offset, address: $0.address, addressType: .random, kind: .connectable, rssi: -50, data: $0.data)
      }
    }
  }
}
