import FuzzSupport
import NordicDFU

// A DFU package's manifest.json (docs/protocols/nordic-dfu.md §1.1), and a package built around it from a known-good init
// packet and firmware, through every check `dfu inspect` makes.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  guard let manifest = try? Manifest(json: bytes) else { return 0 }
  var files: [(name: String, bytes: [UInt8])] = [("manifest.json", bytes)]
  for entry in manifest.entries {
    files.append((entry.binFile, [UInt8](repeating: 0xAB, count: 64)))
    if let dat = entry.datFile { files.append((dat, [])) }
  }
  if let package = try? DFUPackage(archive: InMemoryArchive(files)) { _ = PackageValidator().checks(package) }
  return 0
}
