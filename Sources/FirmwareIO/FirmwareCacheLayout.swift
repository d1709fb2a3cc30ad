import Firmware
import Foundation

/// Where the firmware cache keeps things, under its root (default `$XDG_CACHE_HOME/beacon-provision/firmware`,
/// else `~/.cache/beacon-provision/firmware`; `--firmware-dir` chooses another):
///
///     catalogues/<model>.json            the catalogue's bytes as last fetched
///     catalogues/<model>.meta.json       {url, fetchedAt, etag, lastModified}
///     packages/<model>/<hver>/<version>/<appFileName>   a verified package
///     packages/<model>/<hver>/<version>/package.json    {url, sha256, size, appVersion, fetchedAt}
///     packages/<model>/<hver>/<version>/.lock           held while the package is fetched
///     packages/…/<appFileName>.part                      a download in progress (never used as a package)
///     .pruned-<random>/                                  a package folder `firmware prune` is removing
///
/// Device-reported text (model, hver) becomes one path component: characters other than letters, digits,
/// `.`, `_` and `-` turn into `_`, and a component made only of dots gets a leading `_`, so nothing a
/// device or catalogue says can leave the cache.
public struct FirmwareCacheLayout: Sendable, Hashable {
  public var root: String

  public init(root: String) { self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root }

  /// The default root from the environment (XDG base directory specification).
  public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/beacon-provision/firmware" }
    let home = environment["HOME"] ?? NSHomeDirectory()
    return home + "/.cache/beacon-provision/firmware"
  }

  public static func component(_ text: String) -> String {
    let mapped = String(
      text.map { c -> Character in
        c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "_" || c == "-") ? c : "_"
      })
    return mapped.isEmpty || mapped.allSatisfy({ $0 == "." }) ? "_" + mapped : mapped
  }

  public var cataloguesDirectory: String { root + "/catalogues" }
  public var packagesDirectory: String { root + "/packages" }

  public func cataloguePath(model: String) -> String { cataloguesDirectory + "/" + Self.component(model) + ".json" }
  public func catalogueMetaPath(model: String) -> String {
    cataloguesDirectory + "/" + Self.component(model) + ".meta.json"
  }

  public func packageDirectory(model: String, hardware: String, entry: CatalogueEntry) -> String {
    [packagesDirectory, Self.component(model), Self.component(hardware), Self.component(entry.version.description)]
      .joined(separator: "/")
  }

  public func packagePath(model: String, hardware: String, entry: CatalogueEntry) -> String {
    packageDirectory(model: model, hardware: hardware, entry: entry) + "/" + entry.appFileName
  }
}
