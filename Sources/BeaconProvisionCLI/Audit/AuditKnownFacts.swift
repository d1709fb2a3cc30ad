import Audit
import Fleet
import Foundation

/// What the fleet registry remembers of each audited device, as the report takes it. A registry that cannot
/// be read costs the report its memory (last seen, history, last runs), not the audit: a note goes to
/// standard error and the report is made from this scan alone.
enum AuditKnownFacts {
  static func load(_ registry: FleetRegistry, addresses: [String]) async -> [String: AuditKnown] {
    var known: [String: AuditKnown] = [:]
    do {
      let wanted = Set(addresses)
      for device in try await registry.devices() where wanted.contains(device.address) {
        known[device.address] = AuditKnown(
          name: device.name, model: device.model, hardwareVersion: device.hardwareVersion,
          firmwareVersion: device.firmwareVersion, lastSeen: device.lastSeen, rssi: device.lastRSSI,
          battery: AuditBattery(percent: device.batteryPercent, millivolts: device.batteryMillivolts),
          frames: device.frames,
          lastApply: device.lastApply.map(link), lastDFU: device.lastDFU.map(link),
          history: try await registry.history(device.address).map {
            AuditReading(
              at: $0.at, rssi: $0.rssi,
              battery: AuditBattery(percent: $0.batteryPercent, millivolts: $0.batteryMillivolts))
          })
      }
    } catch {
      FileHandleOutput.standardError(
        "audit: the fleet registry could not be read, so the report holds only this scan: \(error)")
    }
    return known
  }

  static func link(_ run: RegistryRunLink) -> AuditRunLink {
    AuditRunLink(run: run.run, kind: run.kind, outcome: run.outcome, detail: run.detail, at: run.at)
  }
}
