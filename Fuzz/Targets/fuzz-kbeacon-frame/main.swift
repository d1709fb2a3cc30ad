import FuzzSupport
import KBeacon

// KBeacon FEA1/FEA2 framing (docs/protocols/kbeacon.md §4–§5, §9), both directions. The input is a sequence of
// notifications (`Chunks`: a length byte before each): the app's request exchange takes them as device
// acks and reports, the simulated device's request assembler takes them as request frames; each one is
// also read as an auth frame, a history page and a trigger indication, as the session reads them.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  let kind: RequestExchange.Kind = (bytes.first ?? 0) & 1 == 0 ? .json : .hex
  var exchange = RequestExchange(kind: kind, message: Array(#"{"msg":"getPara","type":3}"#.utf8), budget: 14)
  _ = exchange.start()
  var assembler = RequestAssembler()
  var finished = false
  for chunk in Chunks(Array(bytes.dropFirst())) {
    if !finished {
      switch exchange.receive(chunk) {
      case .finish(let response, _):
        finished = true
        for message in response.messages { _ = try? ReadResponse.parse(message, generation: .pro) }
      case .fail: finished = true
      default: break
      }
    }
    if let frame = try? RequestFrame(bytes: chunk) { _ = assembler.take(frame) }
    _ = try? DeviceAck(bytes: chunk)
    _ = try? ReportAck(bytes: chunk)
    _ = try? ReportFragment(bytes: chunk)
    _ = try? DeviceAuthFrame(bytes: chunk)
    _ = try? AppAuthFrame(bytes: chunk)
    _ = try? HistoryPage(bytes: chunk)
    _ = try? IndicationEvent(payload: chunk, generation: .pro)
    _ = try? IndicationEvent(payload: chunk, generation: .legacy)
  }
  return 0
}
