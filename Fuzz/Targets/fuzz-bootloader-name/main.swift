import BeaconCore
import FuzzSupport
import NordicDFU

// A bootloader's advertisement as a scan hears it (docs/protocols/nordic-dfu.md §2.2), through what the DFU
// client and the bootloader hint read from it: the Local Name, the FE59 service, and the device the name
// says this tool put into its bootloader. The input is the advertising data; its bytes read as a name are
// tried too, so the fuzzer reaches the name rules without building AD structures.
// Properties:
// - a name that names a device is one `BootloaderName.make` gives that device for some attempt (so a stray
//   or hostile name, `DfuTarg`, another tool's, is never taken for one of ours);
// - every name `make` gives is at most 20 bytes and names its own device, for any address and attempt.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  _ = BootloaderLocator.advertisesDFUService(bytes)
  let names = [BootloaderLocator.localName(in: bytes), String(decoding: bytes, as: UTF8.self)].compactMap { $0 }
  for name in names {
    guard let device = BootloaderName.device(named: name) else { continue }
    guard BootloaderName.isName(name, of: device) else {
      Fuzzer.fail("\(name) names \(device) but isName says no", bytes)
    }
    let attempt = name.split(separator: "-").last.flatMap { Int($0) } ?? 0
    guard BootloaderName.make(for: device, attempt: attempt) == name else {
      Fuzzer.fail("\(name) is taken for \(device) but no attempt of make gives it", bytes)
    }
  }
  if bytes.count >= 8 {
    let raw = bytes.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let device = BluetoothAddress(rawValue: raw)
    let attempt = Int(bytes[6]) << 8 | Int(bytes[7])
    let name = BootloaderName.make(for: device, attempt: attempt)
    guard name.utf8.count <= BootloaderName.maximumLength else { Fuzzer.fail("\(name) is over 20 bytes", bytes) }
    guard BootloaderName.device(named: name) == device else { Fuzzer.fail("\(name) does not name \(device)", bytes) }
  }
  return 0
}
