import BeaconCore

/// The simulated radio: a `Central` whose scan delivers the fleet's advertising as raw AD bytes (so the
/// real parser runs), at each device's interval, with scan responses only when scanning actively. Time is
/// the `pace`: real time (optionally sped up) for the CLI, `.unpaced` for tests, where reports carry
/// simulated timestamps and arrive as fast as they are consumed (the stream is pulled, so nothing piles up).
public final class SimulatedCentral: Central {
  public let name: String
  public let fleet: SimulatedFleet
  public let pace: SimulationPace

  public init(fleet: SimulatedFleet, name: String = Simulation.adapterName, pace: SimulationPace = .realTime) {
    self.fleet = fleet
    self.name = name
    self.pace = pace
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

  /// Not yet: the GATT engineer replaces this with links to the simulated GATT servers (they own this
  /// method next). Until then every connection attempt fails as "not connectable".
  public func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
    guard fleet.devices.contains(where: { $0.address == address }) else {
      throw LinkError(.unknownDevice, peer: address, detail: "not in the simulated fleet")
    }
    throw LinkError(.notConnectable, peer: address, detail: "simulated GATT links are not available yet")
  }

  /// Holds one scan's schedule so the pulled stream can advance it from any task.
  private actor Timeline {
    var schedule: AdvertisingSchedule
    init(schedule: AdvertisingSchedule) { self.schedule = schedule }
    func next() -> AdvertisingSchedule.Report? { schedule.next() }
  }
}
