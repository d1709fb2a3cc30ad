import Foundation
import FuzzSupport
import NordicDFU
import NordicDFUIO

// A DFU package zip through the real reader (libzip, NordicDFUIO.LibzipArchive), from a temporary file as
// `dfu` reads the operator's file, then every structural and content check of `dfu inspect`.
private let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-dfu-zip-\(getpid()).zip").path

Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
  defer { try? FileManager.default.removeItem(atPath: path) }
  guard let archive = try? LibzipArchive(path: path) else { return 0 }
  for entry in archive.entries.prefix(8) { _ = try? archive.read(entry.name) }
  if let package = try? DFUPackage(archive: archive) { _ = PackageValidator().checks(package) }
  return 0
}
