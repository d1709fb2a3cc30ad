import ArgumentParser
import BeaconCore
import Firmware
import FirmwareIO
import Foundation
import NordicDFU
import Profiles

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
