import FuzzSupport
import NordicDFU

// A Secure DFU init packet (docs/protocols/nordic-dfu.md §1.2; our own protobuf reader), as read from a package's .dat,
// and every check a one-application package with it gets.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  _ = try? InitCommand(decoding: bytes)
  guard (try? InitPacket(decoding: bytes)) != nil else { return 0 }
  let manifest = #"{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"}}}"#
  let archive = InMemoryArchive([
    ("manifest.json", Array(manifest.utf8)), ("app.dat", bytes), ("app.bin", [UInt8](repeating: 0x5A, count: 32)),
  ])
  if let package = try? DFUPackage(archive: archive) { _ = PackageValidator().checks(package) }
  return 0
}
