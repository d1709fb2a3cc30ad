import BeaconCore

/// The simulated radio: a `Central` whose scan delivers the fleet's advertising as raw AD bytes (so the
/// real parser runs), at each device's interval, with scan responses only when scanning actively. Time is
/// the `pace`: real time (optionally sped up) for the CLI, `.unpaced` for tests, where reports carry
/// simulated timestamps and arrive as fast as they are consumed (the stream is pulled, so nothing piles up).
public final class SimulatedCentral: Central {
  public let name: String
  public let fleet: SimulatedFleet
  public let pace: SimulationPace
  /// The GATT side of this simulated adapter: device servers, link model, link cap, faults.
  public let gattLinks: SimulatedGATTLinks
  /// Makes a device's GATT server on its first connect. Default: `GenericDeviceDatabase.server(for:)`;
  /// device kinds with real behaviour (KBeacon, DFU) plug theirs in here.
  public let gattServerFactory: @Sendable (SimulatedDevice) -> GATTServer

  /// `gattLinks` defaults to the default `LinkModel` in real time and `LinkModel.instant` when `.unpaced`.
  public init(
    fleet: SimulatedFleet, name: String = Simulation.adapterName, pace: SimulationPace = .realTime,
    gattLinks: SimulatedGATTLinks? = nil,
    gattServerFactory: @escaping @Sendable (SimulatedDevice) -> GATTServer = GenericDeviceDatabase.server(for:)
  ) {
    self.fleet = fleet
    self.name = name
    self.pace = pace
    self.gattLinks = gattLinks ?? SimulatedGATTLinks(model: pace == .unpaced ? .instant : LinkModel())
    self.gattServerFactory = gattServerFactory
  }

  public func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    let timeline = Timeline(schedule: AdvertisingSchedule(fleet: fleet, active: parameters.active))
    let start = ContinuousClock.now
    let pace = self.pace
    return AsyncThrowingStream(unfolding: {
      guard let next = await timeline.next() else { return nil }
      try await pace.wait(until: next.offset, from: start)
      return next.report(start: start)
    })
  }

  /// Opens a simulated LE link: the device end of a `socketpair(AF_UNIX, SOCK_SEQPACKET)` is served by the
  /// device's GATT server (made on first connect with `gattServerFactory`, kept across reconnects), the
  /// returned bearer is the same `FileDescriptorBearer` used on live L2CAP sockets. The link model is
  /// `gattLinks.model`; at most `gattLinks.capacity.limit` links are open at once (else
  /// `LinkError(.tooManyLinks)`). `timeout` is not needed: a simulated connect completes at once.
  public func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
    guard let device = fleet.devices.first(where: { $0.address == address }) else {
      throw LinkError(.unknownDevice, peer: address, detail: "not in the simulated fleet")
    }
    guard device.connectable else {
      throw LinkError(.notConnectable, peer: address, detail: "this \(device.kind.rawValue) device does not accept connections")
    }
    let factory = gattServerFactory
    return try await gattLinks.open(to: address) { _ in factory(device) }
  }

  /// Holds one scan's schedule so the pulled stream can advance it from any task.
  private actor Timeline {
    var schedule: AdvertisingSchedule
    init(schedule: AdvertisingSchedule) { self.schedule = schedule }
    func next() -> AdvertisingSchedule.Report? { schedule.next() }
  }
}
