import ArgumentParser
import BeaconCore
import Firmware
import FirmwareIO
import Foundation
import NordicDFU
import Profiles

/// `beacon-provision firmware catalog MODEL`: a model's releases per hardware version, which are newer than
/// `--current`, and their notes (docs/protocols/kbeacon.md §11); the catalogue is kept in the cache.
struct FirmwareCatalogCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "catalog",
    abstract: "Show a model's firmware releases (and which are newer than a version).",
    discussion: ExitStatus.paragraph(
      "0 shown; 1 the catalogue could not be fetched or is malformed (the error names the line and JSON path)"))

  @Argument(help: ArgumentHelp("The model, as the device reports it (`model`, e.g. KBPro_SIM).", valueName: "model"))
  var model: String

  @Option(help: ArgumentHelp("Only this hardware version (the device's hver, e.g. V1.0).", valueName: "hver"))
  var hver: String?

  @Option(help: ArgumentHelp("Mark the releases newer than this version (e.g. V5.12).", valueName: "version"))
  var current: String?

  @Flag(help: "Print JSON.")
  var json = false

  @OptionGroup var source: FirmwareSourceOptions

  func validate() throws {
    if let current, FirmwareVersion(current) == nil {
      throw ValidationError("--current \(current) is not a version like V5.12")
    }
  }

  func run() async throws {
    let snapshot: CatalogueSnapshot
    let location = try source.location()
    do {
      snapshot = try await source.cache(location: location, expectations: DeviceExpectations()).catalogue(
        model: model, location: location)
    } catch let failure as CLIFailure {
      throw failure
    } catch {
      throw CLIFailure("\(error)")
    }
    let view = FirmwareCatalogView(
      snapshot: snapshot, location: location, hardware: hver, current: current.flatMap(FirmwareVersion.init))
    if let hver, !snapshot.catalogue.hardwareVersions.contains(hver) {
      FileHandleOutput.standardError(
        "warning: the \(model) catalogue has no hardware version \(hver) (it has: "
          + "\(snapshot.catalogue.hardwareVersions.joined(separator: ", ")))")
    }
    print(json ? try JSONOutput.string(view) : view.text)
  }
}
