import ArgumentParser
import FirmwareIO
import Foundation
import NordicDFU

/// `beacon-provision firmware list`: the verified packages in the cache.
struct FirmwareListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the packages in the firmware cache.",
    discussion: ExitStatus.paragraph("0 listed (also when the cache is empty); 1 the cache cannot be read"))

  @Flag(help: "Print JSON.")
  var json = false

  @Option(
    name: .customLong("firmware-dir"),
    help: ArgumentHelp("The firmware cache (default: the XDG cache folder).", valueName: "dir"))
  var firmwareDirectory: String?

  func run() async throws {
    let cache = FirmwareCache.inFolder(firmwareDirectory)
    let packages = try await cache.list()
    if json {
      print(try JSONOutput.string(packages.map(CachedPackageJSON.init)))
      return
    }
    guard !packages.isEmpty else {
      print("the firmware cache \(cache.layout.root) holds no packages")
      return
    }
    print("MODEL        HVER    VERSION  SIZE     SHA-256           PATH")
    for p in packages {
      print(
        [
          p.model.padded(12), p.hardware.padded(7), p.appVersion.padded(8), "\(p.size)".padded(8),
          String(p.sha256.prefix(16)) + "…", p.path,
        ].joined(separator: " "))
    }
  }
}

/// A cached package as `firmware list --json` prints it.
struct CachedPackageJSON: Encodable {
  var model, hardware, appVersion, appFileName, url, sha256, path: String
  var size: Int
  /// ISO 8601, UTC.
  var fetchedAt: String

  init(_ p: CachedPackage) {
    (model, hardware, appVersion, appFileName, url, sha256, path, size, fetchedAt) =
      (
        p.model, p.hardware, p.appVersion, p.appFileName, p.url, p.sha256, p.path, p.size,
        p.fetchedAt.formatted(.iso8601)
      )
  }
}

extension FirmwareCache {
  /// The cache at `--firmware-dir` (or the default), for commands that never use the network.
  static func inFolder(_ folder: String?) -> FirmwareCache {
    FirmwareCache(
      layout: FirmwareCacheLayout(
        root: folder.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
          ?? FirmwareCacheLayout.defaultRoot()), client: nil)
  }
}

extension String {
  func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
