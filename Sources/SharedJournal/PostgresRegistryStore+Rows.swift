import Fleet
import Foundation

/// Registry rows from their text form, and each device's last runs from the shared journal.
extension PostgresRegistryStore {
  static func device(_ r: [String: String]) -> RegistryDevice {
    let frames = (try? JSONDecoder().decode([String].self, from: Data((r["frames"] ?? "[]").utf8))) ?? []
    return RegistryDevice(
      address: r["address"] ?? "", addressType: r["address_type"], name: r["name"], model: r["model"],
      hardwareVersion: r["hardware_version"], firmwareVersion: r["firmware_version"],
      firstSeen: PostgresJournal.date(r["first_seen"]) ?? Date(timeIntervalSince1970: 0),
      lastSeen: PostgresJournal.date(r["last_seen"]) ?? Date(timeIntervalSince1970: 0), lastRSSI: r["last_rssi"].flatMap(Int.init),
      batteryPercent: r["battery_percent"].flatMap(Int.init), batteryMillivolts: r["battery_millivolts"].flatMap(Int.init),
      frames: frames, configurationHash: r["configuration_hash"],
      configurationReadAt: PostgresJournal.date(r["configuration_read_at"]))
  }

  struct RunKey: Hashable {
    var address: String
    var kind: String
  }

  static func linked(_ device: RegistryDevice, _ links: [RunKey: RegistryRunLink]) -> RegistryDevice {
    var device = device
    device.lastApply = links[RunKey(address: device.address, kind: "apply")]
    device.lastDFU = links[RunKey(address: device.address, kind: "dfu")]
    return device
  }

  /// The latest run of each linked kind holding each address (or just `address`): the run started last wins,
  /// whatever its status, with the device's state there as the outcome (as `FleetRegistry.runLinks`).
  static func runLinks(_ s: PostgresSession, address: String?) throws -> [RunKey: RegistryRunLink] {
    let rows = try s.query(
      """
      SELECT DISTINCT ON (d.address, r.kind) d.address, d.run_id, r.kind, d.state, d.detail,
        extract(epoch FROM d.updated_at)::float8 AS updated_at
      FROM bp_device d JOIN bp_run r ON r.id = d.run_id
      WHERE r.kind = ANY (string_to_array($1, ',')) AND ($2::text IS NULL OR d.address = $2)
      ORDER BY d.address, r.kind, r.started_at DESC, r.id DESC
      """, [RegistryChange.linkedKinds.joined(separator: ","), address])
    var links: [RunKey: RegistryRunLink] = [:]
    for r in rows.records {
      guard let address = r["address"], let kind = r["kind"] else { continue }
      links[RunKey(address: address, kind: kind)] = RegistryRunLink(
        run: r["run_id"] ?? "", kind: kind, outcome: r["state"] ?? "", detail: r["detail"],
        at: PostgresJournal.date(r["updated_at"]) ?? Date(timeIntervalSince1970: 0))
    }
    return links
  }
}
