import BeaconCore
import FuzzSupport

// ATT PDUs (Core Vol 3 Part F §3.4) as a bearer delivers them from a peer, client or server side. A PDU
// that decodes must encode back to a PDU that decodes to the same value.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  guard let pdu = try? ATTPDU(bytes) else { return 0 }
  var encoded: [UInt8] = []
  pdu.append(to: &encoded)
  guard let again = try? ATTPDU(encoded), again == pdu else {
    Fuzzer.fail("ATT PDU \(pdu) does not survive encode → decode", bytes)
  }
  return 0
}
