import Firmware
import FuzzSupport
import Profiles

// A KKM firmware catalogue (docs/protocols/kbeacon.md §11) as `firmware catalog` and `dfu update --firmware` read it
// from a server: decoded with positions for its diagnostics, then every hardware version's entries listed,
// the latest and the newer-than picked, a release chosen for a device at a few versions (latest and the
// first entry's own), KKM's float order compared with ours, and each package URL built under a base.
// Properties: a chosen release is newer than the device; every accepted file name is a plain one, so a
// package URL stays under the catalogue's base.
private let model = "KBPro_SIM"
private let base = try! CatalogueLocation(base: "https://firmware.example.invalid/kbeacon/")
private let currents = ["5.12", "0.0", "99.99"].compactMap(FirmwareVersion.init)

Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  let catalogue: FirmwareCatalogue
  do {
    catalogue = try FirmwareCatalogue.decode(bytes, model: model, source: "fuzz/\(model).json")
  } catch {
    _ = String(describing: error)
    return 0
  }
  for hardware in catalogue.hardwareVersions + ["V9.9"] {
    let entries = catalogue.entries(hardware: hardware)
    _ = catalogue.latest(hardware: hardware)
    for (i, entry) in entries.enumerated() {
      _ = entry.sha256Hex
      _ = KKMVersionOrder.disagrees(entry, entries[(i + 1) % entries.count])
      if let problem = PackageFileName.problem(entry.appFileName) {
        Fuzzer.fail("the decoder let through a file name that leaves the base: \(problem)", bytes)
      }
      _ = base.packageURL(entry)
    }
    let wanted = [FirmwareWanted.latest] + entries.prefix(1).map { .version($0.version) }
    for current in currents {
      _ = catalogue.newer(than: current, hardware: hardware)
      for w in wanted {
        if case .install(let entry) = FirmwareChoice.choose(catalogue, hardware: hardware, current: current, wanted: w),
          !(entry.version > current)
        {
          Fuzzer.fail("chose \(entry.appVersion) for a device at \(current)", bytes)
        }
      }
    }
  }
  return 0
}
