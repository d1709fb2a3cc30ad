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
/// step from a min-heap of (due, index) — O(log n) a report; it was a linear scan, which at 10,000 devices
/// advertising at 1 Hz was most of `provision-bench monitor`'s CPU. Ties go to the device listed
/// first, as before.
public struct AdvertisingSchedule: Sendable {
  private var advertisers: [SimulatedAdvertiser]
  private var due: [Duration]
  /// Indices of the advertisers still on the schedule, as a min-heap ordered by (due, index).
  private var heap: [Int]
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
    due = advertisers.map(\.firstOffset)
    heap = []
    self.active = active
    for i in advertisers.indices { push(i) }
  }

  private func before(_ a: Int, _ b: Int) -> Bool { (due[a], a) < (due[b], b) }

  private mutating func push(_ i: Int) {
    heap.append(i)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard before(heap[child], heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  /// Takes the earliest advertiser off the heap.
  private mutating func pop() {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1, right = left + 1
      var first = parent
      if left < heap.count && before(heap[left], heap[first]) { first = left }
      if right < heap.count && before(heap[right], heap[first]) { first = right }
      guard first != parent else { return }
      heap.swapAt(parent, first)
      parent = first
    }
  }

  /// The next report in time order, or nil once every device is silent for good (an empty fleet at once).
  /// A device with `presence` windows skips to its next window while off the air.
  public mutating func next() -> Report? {
    var earliest: Int?
    while true {
      earliest = heap.first
      guard let i = earliest, let presence = advertisers[i].device.presence else { break }
      switch presence.state(at: due[i]) {
      case .onAir: break
      case .silentUntil(let offset) where offset > due[i]:
        pop()
        due[i] = offset
        push(i)
        continue
      case .silentUntil:
        // The next window starts at (or, rounded to whole milliseconds and back, just before) this instant:
        // it has begun. Staying put here looped for ever, a cooperative thread at full speed.
        break
      case .gone:
        pop()
        continue
      }
      break
    }
    if let pending = pendingResponses.first, earliest.map({ pending.offset <= due[$0] }) ?? true {
      pendingResponses.removeFirst()
      return pending
    }
    guard let i = earliest else { return nil }
    let offset = due[i]
    let (data, rssi) = advertisers[i].nextPDU(elapsed: offset)
    pop()
    due[i] = offset + advertisers[i].nextDelay()
    push(i)
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
