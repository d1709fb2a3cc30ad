import FuzzSupport
import NordicDFU

// SLIP (RFC 1055) as the serial DFU transport reads it from a UART, fed in the pieces the input's first
// byte picks; and the round trip: any bytes SLIP-encoded decode to themselves.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  let piece = max(1, Int(bytes.first ?? 1))
  var decoder = SLIPDecoder()
  var start = 0
  while start < bytes.count {
    let end = min(bytes.count, start + piece)
    for output in decoder.feed(bytes[start..<end]) {
      if case .frame(let frame) = output { _ = try? ControlPointResponse(bytes: frame) }
    }
    start = end
  }
  let payload = Array(bytes.prefix(4096))
  guard !payload.isEmpty else { return 0 }
  var roundTrip = SLIPDecoder()
  let outputs = roundTrip.feed(SLIP.encode(payload))
  guard outputs == [.frame(payload)] else { Fuzzer.fail("SLIP round trip gave \(outputs)", bytes) }
  return 0
}
