import BeaconCore
import FuzzSupport

// HCI event packets as read from a raw HCI socket (Core Vol 4 Part E §5.4.4, §7.7), and the advertising
// data of every report in them, as the raw HCI scanner decodes it.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  guard let event = try? HCIEvent(packet: bytes) else { return 0 }
  switch event {
  case .leAdvertisingReports(let reports):
    for report in reports { _ = DecodedAdvertisement(report.data) }
  case .leExtendedAdvertisingReports(let reports):
    for report in reports { _ = DecodedAdvertisement(report.data) }
  case .commandComplete(let complete): _ = complete.status
  default: break
  }
  return 0
}
