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

/// What `firmware catalog` shows: per hardware version each release, whether it is newer than
/// `--current`, and which is the latest; also where KKM's float rule would pick another latest.
struct FirmwareCatalogView: Encodable {
  struct Release: Encodable {
    var appVersion: String
    var appFileName: String
    var url: String
    var note: String
    var sha256: String?
    var size: Int?
    var newer: Bool?
    var latest: Bool
  }

  struct Hardware: Encodable {
    var hver: String
    var releases: [Release]
    /// Set when KKM's apps (float of the version text) would order these releases differently.
    var kkmOrderDiffers: Bool
  }

  var model: String
  var url: String
  /// ISO 8601, UTC.
  var fetchedAt: String
  var origin: String
  var current: String?
  var hardware: [Hardware]

  init(snapshot: CatalogueSnapshot, location: CatalogueLocation, hardware only: String?, current: FirmwareVersion?) {
    let catalogue = snapshot.catalogue
    model = catalogue.model
    url = snapshot.url
    fetchedAt = snapshot.fetchedAt.formatted(.iso8601)
    origin = snapshot.origin.rawValue
    self.current = current.map { "V\($0)" }
    hardware = catalogue.releases.filter { only == nil || $0.hardware == only }.map { release in
      let latest = catalogue.latest(hardware: release.hardware)
      let entries = release.entries
      let differs = entries.indices.contains { i in
        entries.indices.contains { j in KKMVersionOrder.disagrees(entries[i], entries[j]) }
      }
      return Hardware(
        hver: release.hardware,
        releases: entries.map { e in
          Release(
            appVersion: e.appVersion, appFileName: e.appFileName, url: location.packageURL(e), note: e.note,
            sha256: e.sha256Hex, size: e.size, newer: current.map { e.version > $0 }, latest: e == latest)
        }, kkmOrderDiffers: differs)
    }
  }

  var text: String {
    let how =
      [
        "downloaded": "downloaded", "notModified": "not modified since the cached copy",
        "cache": "from the cache, offline",
      ][origin] ?? origin
    var lines = ["\(model): \(url) (\(how), \(fetchedAt))"]
    for h in hardware {
      lines.append("hardware \(h.hver):" + (h.releases.isEmpty ? " no releases" : ""))
      for r in h.releases {
        let marks = [r.latest ? "latest" : nil, r.newer == true ? "newer than \(current!)" : nil].compactMap { $0 }
        lines.append(
          "  \(r.appVersion)  \(r.appFileName)" + (marks.isEmpty ? "" : "  [\(marks.joined(separator: ", "))]"))
        // The server's note, one indented line per line of it.
        if !r.note.isEmpty {
          lines += r.note.split(separator: "\n", omittingEmptySubsequences: false).map { "      \($0)" }
        }
        if let sha = r.sha256 { lines.append("      sha256 \(sha)" + (r.size.map { ", \($0) bytes" } ?? "")) }
      }
      if h.kkmOrderDiffers {
        lines.append(
          "  note: KKM's apps compare these versions as decimal numbers (V5.9 above V5.10) and would order them differently"
        )
      }
      if let current, !h.releases.isEmpty {
        let newer = h.releases.filter { $0.newer == true }.count
        lines.append("  \(newer) release\(newer == 1 ? "" : "s") newer than \(current)")
      }
    }
    // What the catalogue's server wrote (names, notes, URLs) is shown with its control characters escaped.
    return lines.map(\.terminalSafe).joined(separator: "\n")
  }
}
