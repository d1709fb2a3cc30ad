import KBeacon

/// A simulated KBeacon's sensor history (docs/protocols/kbeacon.md §9): records per sensor type, oldest first, and
/// an unread pointer that only `NewRecord` reads advance.
public struct KBeaconDeviceHistory: Sendable, Hashable {
  /// Records per page of a record response [I]: the spec does not say how firmware splits pages.
  public static let recordsPerPage = 40

  public private(set) var records: [UInt8: [SensorRecord]] = [:]
  public private(set) var unreadStart: [UInt8: Int] = [:]

  public init() {}

  public mutating func append(_ record: SensorRecord, sensor: UInt8) { records[sensor, default: []].append(record) }

  public func info(sensor: UInt8, deviceUTC: UInt32) -> HistoryInfo {
    let all = records[sensor] ?? []
    return HistoryInfo(
      sensor: sensor, total: UInt32(all.count), unread: UInt32(all.count - min(all.count, unreadStart[sensor] ?? 0)),
      deviceUTC: deviceUTC)
  }

  public mutating func clear(sensor: UInt8) {
    records[sensor] = []
    unreadStart[sensor] = 0
  }

  /// The pages answering a record read. Positions are record indexes (0 = oldest) [I]; `anyPosition` means
  /// the oldest for forward reads and the newest for reverse reads.
  public mutating func read(sensor: UInt8, position: UInt32, count: UInt16, order: HistoryRequest.Order)
    -> [HistoryPage]
  {
    let all = records[sensor] ?? []
    var selected: [SensorRecord]
    var next: UInt32
    switch order {
    case .unread:
      let start = min(all.count, unreadStart[sensor] ?? 0)
      let end = min(all.count, start + Int(count))
      selected = Array(all[start..<end])
      unreadStart[sensor] = end
      next = end < all.count ? UInt32(end) : HistoryPage.noMore
    case .forward:
      let start = position == HistoryRequest.anyPosition ? 0 : min(all.count, Int(position))
      let end = min(all.count, start + Int(count))
      selected = Array(all[start..<end])
      next = end < all.count ? UInt32(end) : HistoryPage.noMore
    case .reverse:
      let newest = position == HistoryRequest.anyPosition ? all.count - 1 : min(all.count - 1, Int(position))
      let oldest = max(0, newest - Int(count) + 1)
      selected = newest >= 0 ? Array(all[oldest...newest].reversed()) : []
      next = oldest > 0 ? UInt32(oldest - 1) : HistoryPage.noMore
    }
    var pages: [HistoryPage] = []
    while !selected.isEmpty || pages.isEmpty {
      let chunk = Array(selected.prefix(Self.recordsPerPage))
      selected.removeFirst(chunk.count)
      pages.append(HistoryPage(sensor: sensor, nextPosition: next, records: chunk))
    }
    return pages
  }
}
