/// Discovery settings after blukii's `BKDiscoverySettings` (docs/protocols/info-manager.md, "The SDK's classes"): results are grouped in windows of
/// `window` (blukii "scanDuration") separated by `pause` (blukii "scanWaitDuration"); reports
/// weaker than `rssiThreshold` dBm are dropped.
public struct DiscoverySettings: Sendable, Hashable {
  /// Length of one discovery window.
  public var window: Duration
  /// Reports with RSSI below this (dBm) are dropped; nil keeps all. RSSI 127 ("not available") is kept.
  public var rssiThreshold: Int8?
  /// The wait after each window in which reports are not taken (the scanner rests); zero: windows follow
  /// each other. Modelled on one time line: the period is `window + pause`, and a report in the last `pause`
  /// of a period is dropped, so window *k* of the session spans `[k·period, k·period + window)`.
  public var pause: Duration

  public init(window: Duration = .seconds(10), rssiThreshold: Int8? = nil, pause: Duration = .zero) {
    self.window = window
    self.rssiThreshold = rssiThreshold
    self.pause = pause
  }
}

/// The devices seen in one closed window. JSON-ready (times in seconds since the session origin).
public struct DiscoveryWindow: Sendable, Hashable, Codable {
  /// 0 for the first window.
  public var index: Int
  public var start: Double
  public var end: Double
  /// Sorted by address.
  public var devices: [DeviceRecord]
}

/// A pure discovery aggregator: feed it timestamped reports, it returns windows as they close. It has no
/// clock: a window closes when a report arrives past its end, or on `finish(at:)`. Window *k* spans
/// `[origin + k·period, origin + k·period + window)` with `period = window + pause`; windows in which nothing
/// was received are not returned.
/// Reports stamped before the origin, or before the current window (out of order), count in the current
/// window. Per-window frame policy: see `DeviceRecord` (first frame of each kind).
public struct DiscoverySession: Sendable {
  public let settings: DiscoverySettings
  public let origin: ContinuousClock.Instant
  /// Every device of every closed window, merged (`DeviceRecord.merge(newer:)`).
  public private(set) var devices: [BluetoothAddress: DeviceRecord] = [:]
  /// The open window's devices.
  public private(set) var current: [BluetoothAddress: DeviceRecord] = [:]
  public private(set) var windowIndex = 0
  /// Reports dropped by the RSSI threshold.
  public private(set) var droppedBelowThreshold = 0
  /// Reports dropped because they came in a pause between windows.
  public private(set) var droppedInPause = 0

  public init(settings: DiscoverySettings, origin: ContinuousClock.Instant) {
    precondition(settings.window > .zero, "the discovery window must be positive")
    self.settings = settings
    self.origin = origin
  }

  /// Seconds from the origin to `instant`.
  public func seconds(_ instant: ContinuousClock.Instant) -> Double { Self.seconds(instant - origin) }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  /// Adds a report (decoding its payload) and returns the window it closed, if it is past the open one.
  public mutating func ingest(_ report: AdvertisingReport) -> [DiscoveryWindow] {
    ingest(report, decoded: DecodedAdvertisement(report.data))
  }

  /// Adds a report already decoded.
  public mutating func ingest(_ report: AdvertisingReport, decoded: DecodedAdvertisement) -> [DiscoveryWindow] {
    if let threshold = settings.rssiThreshold, report.rssi != 127, report.rssi < threshold {
      droppedBelowThreshold += 1
      return []
    }
    let t = seconds(report.timestamp)
    // Clamped so that absurd timestamps cannot overflow the index.
    let periods = Swift.min((t / periodSeconds).rounded(.down), 1e15)
    if settings.pause > .zero, t - periods * periodSeconds >= windowSeconds, Int(periods) >= windowIndex {
      droppedInPause += 1
      return []
    }
    let index = Swift.max(windowIndex, Int(periods))
    var closed: [DiscoveryWindow] = []
    if index > windowIndex {
      if let w = closeWindow(endingAt: windowEnd(windowIndex)) { closed.append(w) }
      windowIndex = index
    }
    if current[report.address] != nil {
      current[report.address]!.absorb(report: report, decoded: decoded, at: t)
    } else {
      current[report.address] = DeviceRecord(report: report, decoded: decoded, at: t)
    }
    return closed
  }

  /// Closes the open window at `instant` (or its natural end, whichever is earlier).
  public mutating func finish(at instant: ContinuousClock.Instant) -> [DiscoveryWindow] {
    let end = Swift.min(seconds(instant), windowEnd(windowIndex))
    defer { windowIndex += 1 }
    return closeWindow(endingAt: end).map { [$0] } ?? []
  }

  /// Closed windows merged with the open one: what a live view shows now. Sorted by address.
  public var snapshot: [DeviceRecord] {
    var all = devices
    for (address, record) in current {
      if all[address] != nil { all[address]!.merge(newer: record) } else { all[address] = record }
    }
    return all.values.sorted { $0.address < $1.address }
  }

  /// Every device of the closed windows, sorted by address (the final result after `finish`).
  public var results: [DeviceRecord] { devices.values.sorted { $0.address < $1.address } }

  private var windowSeconds: Double { Self.seconds(settings.window) }
  private var periodSeconds: Double { Self.seconds(settings.window + settings.pause) }

  private func windowStart(_ index: Int) -> Double { Double(index) * periodSeconds }
  private func windowEnd(_ index: Int) -> Double { windowStart(index) + windowSeconds }

  private mutating func closeWindow(endingAt end: Double) -> DiscoveryWindow? {
    guard !current.isEmpty else { return nil }
    let records = current.values.sorted { $0.address < $1.address }
    for record in records {
      if devices[record.address] != nil {
        devices[record.address]!.merge(newer: record)
      } else {
        devices[record.address] = record
      }
    }
    current = [:]
    return DiscoveryWindow(index: windowIndex, start: windowStart(windowIndex), end: end, devices: records)
  }
}
