import BeaconCore
import FuzzSupport

// Kernel management-channel events (BlueZ doc/mgmt-api.txt) as read from the control socket, and the EIR
// data of a Device Found event, as the mgmt scanner decodes it.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  guard let event = try? MgmtEvent(packet: bytes) else { return 0 }
  if case .deviceFound(let found) = event.payload { _ = DecodedAdvertisement(found.data) }
  return 0
}
