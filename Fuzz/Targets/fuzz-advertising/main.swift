import BeaconCore
import Foundation
import FuzzSupport

// AD structures and every beacon frame (iBeacon, Eddystone UID/URL/TLM/EID, KKM KSensor/System/0x2080), as
// `scan` and `decode` take them: the one-pass decoder, the validating parser, a discovery session's record
// of the device, and the JSON `scan --json` prints.
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
  _ = try? JSONEncoder().encode(decoded)
  _ = try? JSONEncoder().encode(Array(session.devices.values))
  return 0
}
