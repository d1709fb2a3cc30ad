import BeaconCore
import Foundation
import GRDB
import Profiles

/// The fleet registry: every device ever heard or touched, in the journal's SQLite file (migration "v3",
/// tables `registryDevice` and `registryReading`). Scans add sightings, configuration reads add what the
/// device reports; the last `apply` and `dfu` runs of each device come from the journal's own tables when
/// asked, so they never disagree with it. Each sighting or read that carries an RSSI or a battery value
/// adds a point to the device's history, of which the newest `historyLimit` are kept.
///
/// It never holds a password: a read is kept as its `ConfigurationFingerprint` hash and the values the
/// registry names (model, versions, name, battery), never as the configuration itself.
///
/// Where the rows live is a `RegistryStore`: the journal's SQLite file by default (`SQLiteRegistryStore`, through
/// GRDB's async `read`/`write`, off the cooperative pool), or the PostgreSQL journal several gateways share.
public struct FleetRegistry: Sendable {
  public let store: any RegistryStore
  /// History points kept per device; older ones are deleted as newer ones arrive.
  public let historyLimit: Int
  /// Where the registry lives, for messages.
  public var location: String { store.location }

  public init(store: any RegistryStore, historyLimit: Int = 16) {
    self.store = store
    self.historyLimit = max(1, historyLimit)
  }

  /// The registry in the journal's SQLite file.
  public init(journal: Journal, historyLimit: Int = 16) {
    self.init(store: SQLiteRegistryStore(journal: journal), historyLimit: historyLimit)
  }

  /// The tables (journal migration "v3"). `frames` is a JSON array of `FrameKind` names.
  static func createTables(_ db: Database) throws {
    try db.create(table: "registryDevice") { t in
      t.primaryKey("address", .text)
      t.column("addressType", .text)
      t.column("name", .text)
      t.column("model", .text)
      t.column("hardwareVersion", .text)
      t.column("firmwareVersion", .text)
      t.column("firstSeen", .datetime).notNull()
      t.column("lastSeen", .datetime).notNull()
      t.column("lastRSSI", .integer)
      t.column("batteryPercent", .integer)
      t.column("batteryMillivolts", .integer)
      t.column("frames", .text).notNull().defaults(to: "[]")
      t.column("configurationHash", .text)
      t.column("configurationReadAt", .datetime)
    }
    try db.create(table: "registryReading") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("address", .text).notNull().references("registryDevice", onDelete: .cascade)
      t.column("at", .datetime).notNull()
      t.column("rssi", .integer)
      t.column("batteryPercent", .integer)
      t.column("batteryMillivolts", .integer)
    }
    try db.create(index: "registryReadingByDevice", on: "registryReading", columns: ["address", "at"])
  }

  /// A finished scan: one `DeviceRecord` per device, all seen at `at`.
  public func recordSightings(_ records: [DeviceRecord], at: Date) async throws {
    try await record(records.map { RegistryObservation(sighting: $0, at: at) })
  }

  /// A configuration read over a connection (`plan`, `apply`, `read`): model, versions, name, battery and
  /// the configuration's fingerprint. Password keys are dropped before anything is derived from it.
  public func recordRead(address: String, configuration: DeviceConfigView, at: Date) async throws {
    try await record([RegistryObservation(read: configuration, address: address, at: at)])
  }

  /// What a firmware campaign learnt by reading a device's identity (`FirmwareUpdater.identify`), e.g.
  /// the version a DFU installed and verified. Nil fields leave what is known alone.
  public func recordIdentity(address: String, _ identity: DeviceIdentity, at: Date) async throws {
    var observation = RegistryObservation(address: address, at: at)
    observation.model = identity.model
    observation.hardwareVersion = identity.hardware
    observation.firmwareVersion = identity.firmware?.description
    try await record([observation])
  }

  func record(_ observations: [RegistryObservation]) async throws {
    guard !observations.isEmpty else { return }
    try await store.apply(observations.map(RegistryChange.init(observation:)), historyLimit: historyLimit)
  }

  /// Every device, by address, with its last `apply` and `dfu` runs.
  public func devices() async throws -> [RegistryDevice] { try await store.devices() }

  /// One device (any case of its address), or nil when the registry never heard of it.
  public func device(_ address: String) async throws -> RegistryDevice? { try await store.device(address) }

  /// A device's RSSI and battery history, oldest first (at most `historyLimit` points).
  public func history(_ address: String) async throws -> [RegistryReading] { try await store.history(address) }
}

/// The registry's rows in the journal's SQLite file (migration "v3", `FleetRegistry.createTables`).
public struct SQLiteRegistryStore: RegistryStore {
  public let journal: Journal
  public var location: String { journal.location }

  public init(journal: Journal) { self.journal = journal }

  public func apply(_ changes: [RegistryChange], historyLimit limit: Int) async throws {
    // Not `Journal.write`: a registry failure is not a journal failure (`JournalWriteError` stops campaigns).
    try await journal.database.write { db in
      for change in changes {
        let device = change.applied(to: try FleetRegistry.fetchDevice(db, change.address))
        try FleetRegistry.save(db, device)
        if let reading = change.reading { try FleetRegistry.add(db, reading, address: change.address, limit: limit) }
      }
    }
  }

  public func devices() async throws -> [RegistryDevice] {
    try await journal.database.read { db in
      let links = try FleetRegistry.runLinks(db, address: nil)
      return try Row.fetchAll(db, sql: "SELECT * FROM registryDevice ORDER BY address").map { row in
        var device = try FleetRegistry.device(row)
        device.lastApply = links[FleetRegistry.RunKey(address: device.address, kind: "apply")]
        device.lastDFU = links[FleetRegistry.RunKey(address: device.address, kind: "dfu")]
        return device
      }
    }
  }

  public func device(_ address: String) async throws -> RegistryDevice? {
    let address = RegistryObservation.normalised(address)
    return try await journal.database.read { db in
      guard var device = try FleetRegistry.fetchDevice(db, address) else { return nil }
      let links = try FleetRegistry.runLinks(db, address: address)
      device.lastApply = links[FleetRegistry.RunKey(address: address, kind: "apply")]
      device.lastDFU = links[FleetRegistry.RunKey(address: address, kind: "dfu")]
      return device
    }
  }

  public func history(_ address: String) async throws -> [RegistryReading] {
    let address = RegistryObservation.normalised(address)
    return try await journal.database.read { db in
      try Row.fetchAll(
        db, sql: "SELECT * FROM registryReading WHERE address = ? ORDER BY at, id", arguments: [address]
      ).map { row in
        RegistryReading(
          at: row["at"], rssi: row["rssi"], batteryPercent: row["batteryPercent"],
          batteryMillivolts: row["batteryMillivolts"])
      }
    }
  }
}
