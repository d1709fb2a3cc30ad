import BeaconCore
import Fleet
import Foundation
import Profiles
import Testing

@testable import FleetIO

/// The fleet registry on the shared server keeps what the SQLite registry keeps (`audit` reads
/// the shared registry), and gateways updating one device at once lose nothing.
@Suite(.timeLimit(.minutes(5))) struct PostgresRegistryStoreTests {
  static let a = "DD:34:02:06:D1:01", b = "DD:34:02:06:D1:02"
  static func time(_ seconds: Int) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + Double(seconds)) }

  static func sighting(_ address: String, rssi: Int8, battery: UInt8? = nil) -> DeviceRecord {
    let report = AdvertisingReport(
      address: BluetoothAddress(address)!, addressType: .random, kind: .connectable, rssi: rssi, data: [])
    let frames: [BeaconFrame] =
      battery.map {
        [
          .kkmSystem(
            KKMSystemFrame(
              model: 12, batteryPercent: $0, macAddress: BluetoothAddress(address)!, firmwareMajor: 5, firmwareMinor: 22
            ))
        ]
      } ?? [.iBeacon(IBeaconFrame(uuid: ProximityUUID(high: 1, low: 2), major: 1, minor: 2, measuredPower: -59))]
    var record = DeviceRecord(report: report, decoded: DecodedAdvertisement(elements: [], frames: frames), at: 0)
    record.name = "KBPro_\(address.suffix(2))"
    return record
  }

  /// The same sightings, read, identity and runs, into `registry` and `journal`.
  static func fill(_ registry: FleetRegistry, _ journal: any CampaignJournal) async throws {
    try await registry.recordSightings([sighting(a, rssi: -60, battery: 90), sighting(b, rssi: -70)], at: time(0))
    for i in 1...6 { try await registry.recordSightings([sighting(a, rssi: Int8(-60 - i))], at: time(i)) }
    let read = DeviceConfigView(
      common: [
        "model": .text("KBPro_SIM"), "ver": .text("V5.22"), "hver": .text("V1.0"), "btPt": .integer(88),
        "name": .text("lobby"), "pwd": .text("s3cret-pass"),
      ],
      slots: [:])
    try await registry.recordRead(address: a.lowercased(), configuration: read, at: time(7))
    try await registry.recordIdentity(
      address: b, DeviceIdentity(model: "KBN52", hardware: "V2", firmware: nil), at: time(8))
    let run = try await journal.createRun(
      kind: "apply", source: "p.json", adapter: "hci0", addresses: [a, b], now: time(9), id: "r1")
    try await journal.record(run: run, address: a, state: .verified, countWrite: true)
    try await journal.record(run: run, address: b, state: .failed, detail: "timeout", failureKind: .transient)
    _ = try await journal.createRun(
      kind: "plan", source: "p.json", adapter: "hci0", addresses: [a], now: time(10), id: "p1")
  }

  @Test func keepsWhatTheSQLiteRegistryKeeps() async throws {
    try await withPostgres { server in
      let journal = try await PostgresJournal(connection: try await connect(server), gateway: "gw-1")
      let shared = FleetRegistry(store: PostgresRegistryStore(journal: journal), historyLimit: 4)
      let sqliteJournal = try Journal(path: nil)
      let local = FleetRegistry(journal: sqliteJournal, historyLimit: 4)
      try await Self.fill(shared, journal)
      try await Self.fill(local, sqliteJournal)

      var expected = try await local.devices()
      var got = try await shared.devices()
      // Run link times are each journal's own clock (the server's `now()` for PostgreSQL).
      for i in expected.indices { expected[i].lastApply?.at = .distantPast }
      for i in got.indices { got[i].lastApply?.at = .distantPast }
      #expect(got == expected)
      #expect(got.map(\.address) == [Self.a, Self.b])
      #expect(got[0].lastApply?.run == "r1" && got[0].lastApply?.outcome == "verified" && got[0].batteryPercent == 88)
      #expect(got[1].lastApply?.detail == "timeout" && got[1].model == "KBN52")
      #expect(try await shared.history(Self.a) == (try await local.history(Self.a)))
      #expect(try await shared.history(Self.a).map(\.rssi) == [-64, -65, -66, nil])
      #expect(try await shared.device(Self.a.lowercased())?.configurationHash == expected[0].configurationHash)
      // No password reaches the server's rows.
      let text = try await journal.connection.session { s in
        try s.query("SELECT string_agg(t::text, ' ') FROM bp_registry_device t").rows[0][0] ?? ""
      }
      #expect(!text.contains("s3cret-pass") && text.contains("KBPro_SIM"))
    }
  }

  @Test func gatewaysUpdatingOneDeviceAtOnceLoseNothing() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      var registries: [FleetRegistry] = []
      for name in ["gw-1", "gw-2", "gw-3"] {
        let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: name)
        registries.append(FleetRegistry(store: PostgresRegistryStore(journal: journal), historyLimit: 100))
      }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (g, registry) in registries.enumerated() {
          group.addTask {
            for i in 0..<10 {
              try await registry.recordSightings(
                [Self.sighting(Self.a, rssi: Int8(-50 - g))], at: Self.time(100 + g * 10 + i))
            }
          }
        }
        try await group.waitForAll()
      }
      let device = try #require(try await registries[0].device(Self.a))
      #expect(device.firstSeen == Self.time(100) && device.lastSeen == Self.time(129))
      #expect(try await registries[1].history(Self.a).count == 30)
    }
  }
}
