import Audit
import Firmware
import FirmwareIO
import Foundation
import NordicDFU

/// The newest firmware the firmware cache's catalogues hold for each device's model and hardware version —
/// read from the cache only, never the network (an audit must work offline and be quick). No catalogue
/// base configured, or no cached catalogue for a model: nothing is flagged for those devices, and a note
/// says so on standard error.
struct NewestFirmware {
  var catalog: String?
  var firmwareDirectory: String?

  struct Result {
    /// By device address.
    var byAddress: [String: String] = [:]
    /// By model, the newest over its hardware versions (for the report's thresholds).
    var models: [String: String] = [:]
    subscript(address: String) -> String? { byAddress[address] }
  }

  func byDevice(_ known: [String: AuditKnown]) async -> Result {
    var result = Result()
    let models = Set(known.values.compactMap(\.model))
    guard !models.isEmpty else { return result }
    var arguments = ["--offline"] + (catalog.map { ["--catalog", $0] } ?? [])
    if let firmwareDirectory { arguments += ["--firmware-dir", firmwareDirectory] }
    guard let source = try? FirmwareSourceOptions.parse(arguments), let location = try? source.location(),
      let cache = try? source.cache(location: location, expectations: DeviceExpectations())
    else { return result }
    var catalogues: [String: FirmwareCatalogue] = [:]
    for model in models.sorted() {
      do {
        catalogues[model] = try await cache.catalogue(model: model, location: location).catalogue
      } catch {
        FileHandleOutput.standardError(
          "audit: no cached \(model) catalogue, so its firmware is not compared (\(error))")
      }
    }
    for (model, catalogue) in catalogues {
      let newest = catalogue.hardwareVersions.compactMap { catalogue.latest(hardware: $0) }.max {
        $0.version < $1.version
      }
      result.models[model] = newest?.version.description
    }
    for (address, device) in known {
      guard let model = device.model, let catalogue = catalogues[model], let hardware = device.hardwareVersion else {
        continue
      }
      let candidates = [hardware, hardware.hasPrefix("V") ? String(hardware.dropFirst()) : "V" + hardware]
      if let entry = candidates.lazy.compactMap({ catalogue.latest(hardware: $0) }).first {
        result.byAddress[address] = entry.version.description
      }
    }
    return result
  }
}
