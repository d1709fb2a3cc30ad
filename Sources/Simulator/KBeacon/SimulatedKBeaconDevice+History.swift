import KBeacon

/// HEX requests of a simulated KBeacon: sensor history info, clear and record reads (docs/protocols/kbeacon.md
/// §9), answered with acks whose seq is the request length (`reply`), records as HEX report pages.
extension SimulatedKBeaconDevice {
  mutating func handleHex(_ message: [UInt8], deviceUTC: UInt32) -> Answer {
    guard let request = try? HistoryRequest(bytes: message) else { return ack(.invalidParameter, .hex) }
    let sensor: UInt8
    switch request {
    case .info(let s), .clear(let s), .records(let s, _, _, _, _): sensor = s
    }
    guard profile.historySensors.contains(Int(sensor)) else { return ack(.sensorNotSupported, .hex) }
    switch request {
    case .info:
      let info = history.info(sensor: sensor, deviceUTC: deviceUTC)
      let bytes = profile.generation == .legacy ? info.legacyBytes : info.bytes
      if fitsOnAck(bytes) {
        return Answer(items: [.frame(reply(.success, .hex, payload: bytes).bytes)])
      }
      return Answer(items: [
        .frame(reply(.commandReceived, .hex).bytes), .report(bytes, .hexReport),
        .frame(reply(.commandComplete, .hex).bytes),
      ])
    case .clear:
      history.clear(sensor: sensor)
      return ack(.success, .hex)
    case .records(_, let position, let count, let order, _):
      let pages = history.read(sensor: sensor, position: position, count: count, order: order)
      var items: [Outgoing] = [.frame(reply(.commandReceived, .hex).bytes)]
      for (i, page) in pages.enumerated() {
        items.append(.report(page.bytes, .hexReport))
        if i < pages.count - 1 { items.append(.frame(reply(.commandIncomplete, .hex).bytes)) }
      }
      items.append(.frame(reply(.commandComplete, .hex).bytes))
      return Answer(items: items)
    }
  }
}
