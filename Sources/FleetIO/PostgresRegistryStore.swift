import Fleet
import Foundation
import JSON

/// The fleet registry on the shared journal's server (`audit` reads the shared registry, so
/// one report covers the whole site): the rows of the SQLite registry (`SQLiteRegistryStore`) in
/// `bp_registry_device` and `bp_registry_reading` (schema migration 3), merged the same way
/// (`RegistryChange.applied(to:)`), with each device's last `apply` and `dfu` run from the shared journal.
///
/// Several gateways update one device at once (each hears it): each change runs in a transaction that
/// first makes sure the row exists, then locks it (`SELECT … FOR UPDATE`), so merges never overwrite each
/// other; the history keeps the newest points whoever added them.
public struct PostgresRegistryStore: RegistryStore {
  public let connection: PostgresConnection
  public var location: String { connection.location }
  /// Called with the changes inside `apply`'s transaction, after their rows are locked and before the
  /// commit; nil in the product. The several-gateways tests stop a gateway there (`SimulatorPauseHook`,
  /// `in-registry:ADDRESS`) to prove that a process frozen holding rows does not stall the others for longer
  /// than the server's idle-transaction bound (`PostgresReconnect.defaultIdleInTransactionSeconds`).
  public var insideTransaction: (@Sendable ([RegistryChange]) -> Void)?

  public init(journal: PostgresJournal) { connection = journal.connection }

  static let columns =
    "address, address_type, name, model, hardware_version, firmware_version, extract(epoch FROM first_seen)::float8 AS first_seen, "
    + "extract(epoch FROM last_seen)::float8 AS last_seen, last_rssi, battery_percent, battery_millivolts, frames, "
    + "identities, configuration_hash, extract(epoch FROM configuration_read_at)::float8 AS configuration_read_at"

  public func apply(_ changes: [RegistryChange], historyLimit: Int) async throws {
    try await connection.session { s in
      try s.transaction {
        for change in changes {
          let at = String(change.at.timeIntervalSince1970)
          try s.query(
            """
            INSERT INTO bp_registry_device (address, first_seen, last_seen) VALUES ($1, to_timestamp($2::float8), to_timestamp($2::float8))
              ON CONFLICT (address) DO NOTHING
            """, [change.address, at])
          let rows = try s.query(
            "SELECT \(Self.columns) FROM bp_registry_device WHERE address = $1 FOR UPDATE", [change.address])
          let d = change.applied(to: rows.records.first.map(Self.device))
          try s.query(
            """
            UPDATE bp_registry_device SET address_type = $2, name = $3, model = $4, hardware_version = $5, firmware_version = $6,
              first_seen = to_timestamp($7::float8), last_seen = to_timestamp($8::float8), last_rssi = $9::integer,
              battery_percent = $10::integer, battery_millivolts = $11::integer, frames = $12, configuration_hash = $13,
              configuration_read_at = to_timestamp($14::float8), identities = $15 WHERE address = $1
            """,
            [
              d.address, d.addressType, d.name, d.model, d.hardwareVersion, d.firmwareVersion,
              String(d.firstSeen.timeIntervalSince1970), String(d.lastSeen.timeIntervalSince1970),
              d.lastRSSI.map(String.init),
              d.batteryPercent.map(String.init), d.batteryMillivolts.map(String.init),
              try JSONValueEncoder().text(d.frames), d.configurationHash,
              d.configurationReadAt.map { String($0.timeIntervalSince1970) },
              try d.identities.map { try JSONValueEncoder().text($0) },
            ])
          guard let r = change.reading else { continue }
          try s.query(
            """
            INSERT INTO bp_registry_reading (address, at, rssi, battery_percent, battery_millivolts)
              VALUES ($1, to_timestamp($2::float8), $3::integer, $4::integer, $5::integer)
            """,
            [
              change.address, String(r.at.timeIntervalSince1970), r.rssi.map(String.init),
              r.batteryPercent.map(String.init),
              r.batteryMillivolts.map(String.init),
            ])
          try s.query(
            """
            DELETE FROM bp_registry_reading WHERE address = $1 AND id NOT IN
              (SELECT id FROM bp_registry_reading WHERE address = $1 ORDER BY at DESC, id DESC LIMIT $2::integer)
            """, [change.address, String(historyLimit)])
        }
        insideTransaction?(changes)
      }
    }
  }

  public func devices() async throws -> [RegistryDevice] {
    try await connection.session { s in
      let links = try Self.runLinks(s, address: nil)
      return try s.query("SELECT \(Self.columns) FROM bp_registry_device ORDER BY address").records.map { r in
        Self.linked(Self.device(r), links)
      }
    }
  }

  public func device(_ address: String) async throws -> RegistryDevice? {
    let address = RegistryChange.normalised(address)
    return try await connection.session { s in
      guard
        let r = try s.query("SELECT \(Self.columns) FROM bp_registry_device WHERE address = $1", [address]).records
          .first
      else { return nil }
      return Self.linked(Self.device(r), try Self.runLinks(s, address: address))
    }
  }

  public func history(_ address: String) async throws -> [RegistryReading] {
    let address = RegistryChange.normalised(address)
    return try await connection.session { s in
      try s.query(
        """
        SELECT extract(epoch FROM at)::float8 AS at, rssi, battery_percent, battery_millivolts FROM bp_registry_reading
          WHERE address = $1 ORDER BY at, id
        """, [address]
      ).records.map { r in
        RegistryReading(
          at: PostgresJournal.date(r["at"]) ?? Date(timeIntervalSince1970: 0), rssi: r["rssi"].flatMap(Int.init),
          batteryPercent: r["battery_percent"].flatMap(Int.init),
          batteryMillivolts: r["battery_millivolts"].flatMap(Int.init))
      }
    }
  }
}

/// Registry rows from their text form, and each device's last runs from the shared journal.
extension PostgresRegistryStore {
  static func device(_ r: [String: String]) -> RegistryDevice {
    let frames =
      (try? JSONFileDecoder(file: "registryDevice.frames").decode(
        [String].self, from: Array((r["frames"] ?? "[]").utf8))) ?? []
    let identities = r["identities"].flatMap {
      try? JSONFileDecoder(file: "registryDevice.identities").decode([String].self, from: Array($0.utf8))
    }
    return RegistryDevice(
      address: r["address"] ?? "", addressType: r["address_type"], name: r["name"], model: r["model"],
      hardwareVersion: r["hardware_version"], firmwareVersion: r["firmware_version"],
      firstSeen: PostgresJournal.date(r["first_seen"]) ?? Date(timeIntervalSince1970: 0),
      lastSeen: PostgresJournal.date(r["last_seen"]) ?? Date(timeIntervalSince1970: 0),
      lastRSSI: r["last_rssi"].flatMap(Int.init),
      batteryPercent: r["battery_percent"].flatMap(Int.init),
      batteryMillivolts: r["battery_millivolts"].flatMap(Int.init),
      frames: frames, identities: identities, configurationHash: r["configuration_hash"],
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
