import ArgumentParser
import Firmware
import FirmwareIO
import Foundation
import Profiles

/// `beacon-provision firmware fetch MODEL --hver H [--release V|latest]`: downloads a release into the
/// cache, verifies it (size, sha256, every `dfu inspect` check with the device facts given) and prints its
/// path; a release already in the cache is verified again and not downloaded.
struct FirmwareFetchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fetch",
    abstract: "Download and verify a firmware release into the cache; print its path.",
    discussion: """
      Exit status: 0 verified (the path on standard output); 1 no such release, a download error, or a \
      package that failed verification (nothing is left in the cache); \(ExitStatus.usage).
      """)

  @Argument(help: ArgumentHelp("The model (e.g. KBPro_SIM).", valueName: "model"))
  var model: String

  @Option(help: ArgumentHelp("The hardware version (the device's hver, e.g. V1.0).", valueName: "hver"))
  var hver: String

  /// `--release`, not `--version`, which every command keeps for the tool's own version.
  @Option(
    name: .customLong("release"), help: ArgumentHelp("A release version (e.g. V5.14) or latest.", valueName: "version"))
  var version = "latest"

  @Flag(help: "Print the cached package's record as JSON.")
  var json = false

  @OptionGroup var source: FirmwareSourceOptions

  @OptionGroup var deviceFacts: DFUDeviceOptions

  func validate() throws {
    if FirmwareWanted(version) == nil {
      throw ValidationError("--release \(version) is not latest or a version like V5.14")
    }
  }

  func run() async throws {
    let location = try source.location()
    let progress = DownloadProgress()
    let cache = try source.cache(location: location, expectations: try deviceFacts.expectations(), progress: progress)
    let package: CachedPackage
    do {
      let catalogue = try await cache.catalogue(model: model, location: location).catalogue
      let entries = catalogue.entries(hardware: hver)
      let entry: CatalogueEntry?
      switch FirmwareWanted(version)! {
      case .latest: entry = catalogue.latest(hardware: hver)
      case .version(let v): entry = entries.first { $0.version == v }
      }
      guard let entry else {
        throw CLIFailure(
          "the \(model) catalogue has no \(version) for hardware \(hver) (it has: "
            + (entries.isEmpty
              ? "nothing for \(hver); hardware versions \(catalogue.hardwareVersions.joined(separator: ", "))"
              : entries.map(\.appVersion).joined(separator: ", ")) + ")")
      }
      progress.start(entry.appFileName)
      package = try await cache.package(model: model, hardware: hver, entry: entry, location: location)
    } catch let failure as CLIFailure {
      throw failure
    } catch {
      throw CLIFailure("\(error)")
    }
    FileHandleOutput.standardError(
      "\(package.appFileName) \(package.appVersion): \(package.downloaded ? "downloaded and verified" : "verified, from the cache"), sha256 \(package.sha256)"
    )
    print(json ? try JSONOutput.string(CachedPackageJSON(package)) : package.path)
  }
}
