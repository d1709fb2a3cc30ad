import BeaconCore
import Foundation
import FuzzSupport

// AD structures and every beacon frame (iBeacon, Eddystone UID/URL/TLM/EID, KKM KSensor/System/0x2080), as
// `scan` and `decode` take them: the one-pass decoder, the validating parser, a discovery session's record
// of the device (three reports at one address), and the JSON `scan --json` prints.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  let decoded = DecodedAdvertisement(bytes)
  _ = decoded.localName
  _ = decoded.txPowerLevel
  _ = try? AdvertisingData(validating: bytes)
  var session = DiscoverySession(settings: DiscoverySettings(), origin: .now)
  let report = AdvertisingReport(
    address: BluetoothAddress(rawValue: 0xC0_FF_EE_00_00_01), addressType: .random, kind: .connectable, rssi: -60,
    data: bytes)
  _ = session.ingest(report, decoded: decoded)
  // Two more advertisers at that address, as a bootloader shares its neighbour's (the record folds in each
  // one's name, `DeviceRecord.absorb`): the input cut at its first byte's value, each part one report.
  if let first = bytes.first {
    let cut = min(bytes.count, 1 + Int(first))
    for part in [Array(bytes[1..<cut]), Array(bytes[cut...])] {
      var next = report
      next.data = part
      _ = session.ingest(next, decoded: DecodedAdvertisement(part))
    }
  }
  _ = try? JSONEncoder().encode(decoded)
  _ = try? JSONEncoder().encode(Array(session.devices.values))
  return 0
}
