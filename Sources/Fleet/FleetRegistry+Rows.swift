import Foundation
import GRDB
import JSON

/// The registry's rows: devices in and out of `registryDevice`, history points into `registryReading`
/// (pruned to the newest `limit` per device), and the last runs of each device from the journal's `run`
/// and `device` tables.
extension FleetRegistry {
  /// The run kinds a registry device links to, as `Journal.createRun` records them (`ProfileCampaignPlan`:
  /// "apply"; `FirmwareCampaignPlan`: "dfu"). `plan` runs change nothing and are not linked.
  static let linkedKinds = ["apply", "dfu"]

  struct RunKey: Hashable {
    var address: String
    var kind: String
  }

  static func fetchDevice(_ db: Database, _ address: String) throws -> RegistryDevice? {
    try Row.fetchOne(
      try db.cachedStatement(sql: "SELECT * FROM registryDevice WHERE address = ?"), arguments: [address]
    ).map(device)
  }

  static func device(_ row: Row) throws -> RegistryDevice {
    let frames = try JSONFileDecoder(file: "registryDevice.frames")
      .decode([String].self, from: Array((row["frames"] as String? ?? "[]").utf8))
    let identities = try (row["identities"] as String?).map {
      try JSONFileDecoder(file: "registryDevice.identities").decode([String].self, from: Array($0.utf8))
    }
    return RegistryDevice(
      address: row["address"], addressType: row["addressType"], name: row["name"], model: row["model"],
      hardwareVersion: row["hardwareVersion"], firmwareVersion: row["firmwareVersion"], firstSeen: row["firstSeen"],
      lastSeen: row["lastSeen"], lastRSSI: row["lastRSSI"], batteryPercent: row["batteryPercent"],
      batteryMillivolts: row["batteryMillivolts"], frames: frames, identities: identities,
      configurationHash: row["configurationHash"],
      configurationReadAt: row["configurationReadAt"])
  }

  /// Inserts the device's row or updates it in place — an update, not a REPLACE, which would delete the row
  /// and with it (ON DELETE CASCADE) the device's history. Its run links are not stored.
  static func save(_ db: Database, _ d: RegistryDevice) throws {
    let frames = try JSONValueEncoder().text(d.frames)
    let identities = try d.identities.map { try JSONValueEncoder().text($0) }
    // Cached statements: the monitor saves thousands of devices every 10 s, and compiling
    // each statement anew was most of that write's CPU.
    try db.cachedStatement(
      sql: """
        INSERT INTO registryDevice (address, addressType, name, model, hardwareVersion, firmwareVersion, firstSeen,
          lastSeen, lastRSSI, batteryPercent, batteryMillivolts, frames, identities, configurationHash, configurationReadAt)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (address) DO UPDATE SET addressType = excluded.addressType, name = excluded.name, model = excluded.model,
          hardwareVersion = excluded.hardwareVersion, firmwareVersion = excluded.firmwareVersion, firstSeen = excluded.firstSeen,
          lastSeen = excluded.lastSeen, lastRSSI = excluded.lastRSSI, batteryPercent = excluded.batteryPercent,
          batteryMillivolts = excluded.batteryMillivolts, frames = excluded.frames, identities = excluded.identities,
          configurationHash = excluded.configurationHash,
          configurationReadAt = excluded.configurationReadAt
        """
    ).execute(
      arguments: [
        d.address, d.addressType, d.name, d.model, d.hardwareVersion, d.firmwareVersion, d.firstSeen, d.lastSeen,
        d.lastRSSI,
        d.batteryPercent, d.batteryMillivolts, frames, identities, d.configurationHash, d.configurationReadAt,
      ])
  }

  /// Adds a history point, then deletes the device's points beyond the newest `limit`.
  static func add(_ db: Database, _ r: RegistryReading, address: String, limit: Int) throws {
    try db.cachedStatement(
      sql: "INSERT INTO registryReading (address, at, rssi, batteryPercent, batteryMillivolts) VALUES (?, ?, ?, ?, ?)"
    )
    .execute(arguments: [address, r.at, r.rssi, r.batteryPercent, r.batteryMillivolts])
    try db.cachedStatement(
      sql: """
        DELETE FROM registryReading WHERE address = ? AND id NOT IN
          (SELECT id FROM registryReading WHERE address = ? ORDER BY at DESC, id DESC LIMIT ?)
        """
    ).execute(arguments: [address, address, limit])
  }

  /// The latest run of each linked kind that holds each address (or just `address`): the run started last
  /// wins, whatever its status, with the device's state there as the outcome.
  static func runLinks(_ db: Database, address: String?) throws -> [RunKey: RegistryRunLink] {
    let kinds = linkedKinds.map { "'\($0)'" }.joined(separator: ", ")
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT address, runId, kind, state, detail, updatedAt FROM (
          SELECT d.address, d.runId, r.kind, d.state, d.detail, d.updatedAt,
            ROW_NUMBER() OVER (PARTITION BY d.address, r.kind ORDER BY r.startedAt DESC, r.id DESC) AS n
          FROM device d JOIN run r ON r.id = d.runId
          WHERE r.kind IN (\(kinds)) AND (? IS NULL OR d.address = ?)
        ) WHERE n = 1
        """,
      arguments: [address, address])
    var links: [RunKey: RegistryRunLink] = [:]
    for row in rows {
      let link = RegistryRunLink(
        run: row["runId"], kind: row["kind"], outcome: row["state"], detail: row["detail"], at: row["updatedAt"])
      links[RunKey(address: row["address"], kind: link.kind)] = link
    }
    return links
  }
}
