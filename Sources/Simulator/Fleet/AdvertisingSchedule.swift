import BeaconCore

/// How fast simulated time runs against the wall clock.
public enum SimulationPace: Sendable, Hashable {
  /// Reports arrive when they would on air (`speed` 2 = twice as fast).
  case realTime(speed: Double)
  /// No waiting: reports come as fast as the consumer takes them (tests). Timestamps stay on the
  /// simulated time line.
  case unpaced

  public static let realTime = SimulationPace.realTime(speed: 1)

  /// How long after the scan start, on the wall clock, something at simulated `offset` is delivered;
  /// nil when unpaced.
  public func wallClockOffset(_ offset: Duration) -> Duration? {
    switch self {
    case .realTime(let speed): offset / speed
    case .unpaced: nil
    }
  }

  /// Waits until simulated `offset` after `start`.
  func wait(until offset: Duration, from start: ContinuousClock.Instant) async throws {
    guard let wall = wallClockOffset(offset) else { return try Task.checkCancellation() }
    let target = start + wall
    if target > .now { try await Task.sleep(until: target, tolerance: .microseconds(200), clock: .continuous) }
  }
}

/// The merged timeline of a fleet's advertising: every device's PDUs at its interval (plus advDelay) and,
/// when scanning actively, each scannable PDU's scan response 150 µs later (T_IFS, Core Vol 6 Part B
/// §4.1.1). Pure: it is given no clock, only offsets from the scan start. Picks the earliest device each
/// step from a `MinHeap` of (due, index) — O(log n) a report; it was a linear scan, which at 10,000 devices
/// advertising at 1 Hz was most of `provision-bench monitor`'s CPU. Ties go to the device listed
/// first, as before.
public struct AdvertisingSchedule: Sendable {
  private var advertisers: [SimulatedAdvertiser]
  /// The advertisers still on the schedule, each with when it is next due.
  private var heap = MinHeap<Due>()
  /// Scan responses not yet delivered, earliest first.
  private var pendingResponses: [Report] = []
  public let active: Bool

  /// One scheduled report: what to deliver and when (offset since the scan start).
  public struct Report: Sendable {
    public var offset: Duration
    public var address: BluetoothAddress
    public var addressType: AddressType
    public var kind: AdvertisingReport.Kind
    public var rssi: Int8
    public var data: [UInt8]

    public func report(start: ContinuousClock.Instant) -> AdvertisingReport {
      AdvertisingReport(
        address: address, addressType: addressType, kind: kind, rssi: rssi, data: data, timestamp: start + offset)
    }
  }

  public init(fleet: SimulatedFleet, active: Bool) {
    self.init(devices: fleet.devices, active: active)
  }

  /// The schedule of these devices as they advertise now; a device with no frame (a KBeacon whose
  /// configuration turns every slot off) is silent.
  public init(devices: [SimulatedDevice], active: Bool) {
    advertisers = devices.filter(\.advertises).map(SimulatedAdvertiser.init(device:))
    self.active = active
    for (index, advertiser) in advertisers.enumerated() { heap.push(Due(offset: advertiser.firstOffset, index: index)) }
  }

  /// An advertiser's next PDU: ordered by time, then by the advertiser's place in the fleet (ties go to the
  /// device listed first).
  private struct Due: Comparable, Sendable {
    var offset: Duration
    var index: Int

    static func < (a: Due, b: Due) -> Bool { (a.offset, a.index) < (b.offset, b.index) }
  }

  /// The next report in time order, or nil once every device is silent for good (an empty fleet at once).
  /// A device with `presence` windows skips to its next window while off the air.
  public mutating func next() -> Report? {
    var earliest: Due?
    while true {
      earliest = heap.min
      guard let next = earliest, let presence = advertisers[next.index].device.presence else { break }
      switch presence.state(at: next.offset) {
      case .onAir: break
      case .silentUntil(let offset) where offset > next.offset:
        heap.popMin()
        heap.push(Due(offset: offset, index: next.index))
        continue
      case .silentUntil:
        // The next window starts at (or, rounded to whole milliseconds and back, just before) this instant:
        // it has begun. Staying put here looped for ever, a cooperative thread at full speed.
        break
      case .gone:
        heap.popMin()
        continue
      }
      break
    }
    if let pending = pendingResponses.first, earliest.map({ pending.offset <= $0.offset }) ?? true {
      pendingResponses.removeFirst()
      return pending
    }
    guard let next = earliest else { return nil }
    let (i, offset) = (next.index, next.offset)
    let (data, rssi) = advertisers[i].nextPDU(elapsed: offset)
    heap.popMin()
    heap.push(Due(offset: offset + advertisers[i].nextDelay(), index: i))
    let advertiser = advertisers[i]
    let device = advertiser.device
    if active, advertiser.pduKind != .nonConnectable, let response = advertiser.scanResponse {
      let response = Report(
        offset: offset + .microseconds(150), address: device.address, addressType: device.addressType,
        kind: .scanResponse,
        rssi: advertisers[i].nextRSSI(), data: response)
      let at = pendingResponses.firstIndex { $0.offset > response.offset } ?? pendingResponses.endIndex
      pendingResponses.insert(response, at: at)
    }
    return Report(
      offset: offset, address: device.address, addressType: device.addressType, kind: advertiser.pduKind, rssi: rssi,
      data: data)
  }
}
