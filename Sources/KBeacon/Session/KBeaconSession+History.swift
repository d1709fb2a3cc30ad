/// Sensor history (docs/protocols/kbeacon.md §9) and FEA3 events (§8.3).
extension KBeaconSession {
  public func historyInfo(sensor: SensorType) async throws -> HistoryInfo {
    let messages = try await exchange(
      .hex, HistoryRequest.info(sensor: UInt8(sensor.rawValue)).bytes, timeout: timeouts.command,
      operation: "history info")
    guard let first = messages.first else { throw KBeaconError.sensorMessageMalformed("empty info response") }
    return generation == .legacy ? try HistoryInfo(legacyBytes: first) : try HistoryInfo(bytes: first)
  }

  /// Reads up to `limit` records in `order`, page by page until the device says no more, with
  /// device-relative times moved onto the host clock (offset = host UTC − device UTC from the info read).
  public func readHistory(sensor: SensorType, order: HistoryRequest.Order, limit: Int = 10_000, pageSize: UInt16 = 100)
    async throws -> [SensorRecord]
  {
    let info = try await historyInfo(sensor: sensor)
    let offset = info.clockOffset(hostUTC: environment.now())
    var records: [SensorRecord] = []
    var position = HistoryRequest.anyPosition
    let interval: UInt8? = generation == .legacy ? nil : HistoryRequest.sdkConnectionInterval
    while records.count < limit {
      let want = UInt16(min(Int(pageSize), limit - records.count))
      let request = HistoryRequest.records(
        sensor: UInt8(sensor.rawValue), position: position, count: want, order: order, connectionInterval: interval)
      let messages = try await exchange(.hex, request.bytes, timeout: timeouts.command, operation: "history records")
      var next = HistoryPage.noMore
      var got = 0
      for message in messages {
        let page = try HistoryPage(bytes: message)
        records += page.records.map { $0.corrected(offset: offset) }
        next = page.nextPosition
        got += page.records.count
      }
      if next == HistoryPage.noMore || got == 0 { break }
      if order != .unread { position = next }
    }
    return Array(records.prefix(limit))
  }

  public func clearHistory(sensor: SensorType) async throws {
    _ = try await exchange(
      .hex, HistoryRequest.clear(sensor: UInt8(sensor.rawValue)).bytes, timeout: timeouts.command,
      operation: "history clear")
  }

  /// FEA3 events, decoded for the session's generation.
  public func events() async throws -> AsyncThrowingStream<IndicationEvent, any Error> {
    let raw = try await link.indications()
    let generation = self.generation ?? .pro
    return AsyncThrowingStream { continuation in
      let task = Task {
        do {
          for try await payload in raw {
            continuation.yield(try IndicationEvent(payload: payload, generation: generation))
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
