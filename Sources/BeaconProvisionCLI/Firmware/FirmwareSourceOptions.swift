import ArgumentParser
import BeaconCore
import Firmware
import FirmwareIO
import Foundation
import HTTP
import JSON
import KBeacon
import NordicDFU
import Synchronization

/// Where firmware comes from and where it is kept, shared by `firmware …` and `dfu update --firmware`:
/// the catalogue base URL (docs/protocols/kbeacon.md §11), the cache folder, `--offline`, and the network options.
///
/// The base URL, first found wins: `--catalog URL`, the environment variable `BEACON_PROVISION_CATALOG`,
/// then `"firmwareCatalog"` in `$XDG_CONFIG_HOME/beacon-provision/config.json` (else
/// `~/.config/beacon-provision/config.json`). A value without a scheme is a local folder (a `file://` URL).
/// KKM's public base, `https://download.kkmiot.com:8093/KBeaconFirmware/`, is only an example: nothing
/// here assumes it can be reached.
struct FirmwareSourceOptions: ParsableArguments {
  @Option(
    name: .customLong("catalog"),
    help: ArgumentHelp(
      "Catalogue base URL (http://, https://, file:// or a folder); <base>/<model>.json lists releases. "
        + "Default: $BEACON_PROVISION_CATALOG, else \"firmwareCatalog\" in ~/.config/beacon-provision/config.json. "
        + "KKM's public one, for example: \(CatalogueLocation.kkmPublicBase)", valueName: "url"))
  var catalog: String?

  @Option(
    name: .customLong("firmware-dir"),
    help: ArgumentHelp(
      "The firmware cache (default: $XDG_CACHE_HOME/beacon-provision/firmware, else ~/.cache/beacon-provision/firmware).",
      valueName: "dir"))
  var firmwareDirectory: String?

  @Flag(
    help: ArgumentHelp(
      "Refuse a package whose application fw_version does not read as the catalogue's version (V5.31 ↔ 531); "
        + "by default that is a warning: vendors number fw_version as they like, and the device's version after "
        + "the update is checked anyway."))
  var requireVersionMatch = false

  @Flag(help: "Use only the cache: no network, not even to check that a catalogue is current.")
  var offline = false

  @OptionGroup(title: "HTTP") var network: NetworkOptions

  static let environmentVariable = "BEACON_PROVISION_CATALOG"

  /// The config file's path for this environment.
  static func configFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    let base =
      environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
    return base + "/beacon-provision/config.json"
  }

  /// The catalogue base, from the option, the environment or the config file.
  func location(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CatalogueLocation {
    var text = catalog ?? environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    let config = Self.configFile(environment: environment)
    if text == nil, let data = try InputFile.readIfPresent(config, limit: .config) {
      do {
        let value = try JSONParser.parse([UInt8](data))
        guard case .object(let object) = value else {
          throw CLIFailure("\(config): expected an object like {\"firmwareCatalog\": \"https://…/\"}")
        }
        if let url = object["firmwareCatalog"] {
          guard let s = url.stringValue else {
            throw CLIFailure("\(config): $.firmwareCatalog: expected a string (a URL)")
          }
          text = s
        }
      } catch let error as JSONSyntaxError {
        throw CLIFailure("\(config):\(error.description)")
      }
    }
    guard let text else {
      throw CLIFailure(
        "no firmware catalogue: give --catalog URL, set \(Self.environmentVariable), or put "
          + "{\"firmwareCatalog\": \"URL\"} in \(config) (KKM's public base, for example: \(CatalogueLocation.kkmPublicBase))"
      )
    }
    let url = text.contains("://") ? text : "file://" + URL(fileURLWithPath: text).standardizedFileURL.path
    do {
      return try CatalogueLocation(base: url)
    } catch {
      throw CLIFailure("--catalog: \(error.description)")
    }
  }

  var layout: FirmwareCacheLayout { FirmwareCache.inFolder(firmwareDirectory).layout }

  /// What fetches from `location`: nothing with `--offline` (the cache only), else the libcurl client —
  /// for `file://` folders too, so one path reads every catalogue.
  func client(for location: CatalogueLocation) throws -> (any HTTPClient)? {
    offline ? nil : network.client
  }

  /// The cache, fetching from `location` (or, `--offline`, the cache only), verifying with `expectations`.
  func cache(location: CatalogueLocation, expectations: DeviceExpectations, progress: DownloadProgress? = nil) throws
    -> FirmwareCache
  {
    let client = try client(for: location)
    var cache = FirmwareCache(
      layout: layout, client: client,
      verifier: PackageVerifier(expectations: expectations, requireVersionMatch: requireVersionMatch))
    let said = Mutex<Set<String>>([])
    cache.warn = { warning in
      // Once per run: a campaign asks for the same package for every device of a model.
      if said.withLock({ $0.insert(warning).inserted }) { FileHandleOutput.standardError("warning: \(warning)") }
    }
    if let progress {
      cache.progress = { progress.show($0) }
      cache.lockWait = { progress.note("another fetch holds \($0)/.lock; waiting for it") }
    }
    return cache
  }

  /// `--firmware FIRMWARE` and these options as a command that resumes the run must repeat them (its recipe is
  /// the catalogue's place and the firmware asked for): a catalogue whose URL carries a secret is left out,
  /// relative paths are made absolute.
  func resumeArguments(firmware: String) -> [String] {
    var arguments = ["--firmware", firmware]
    if let catalog, RedactedURL(catalog).secrets.isEmpty {
      arguments += ["--catalog", catalog.contains("://") ? catalog : Self.absolute(catalog)]
    }
    arguments += firmwareDirectory.map { ["--firmware-dir", Self.absolute($0)] } ?? []
    if offline { arguments.append("--offline") }
    return arguments
  }

  /// `path` from the current directory when it is relative.
  static func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
  }
}
