import BeaconCore
import Foundation
import GRDB
import Profiles
import Testing

@testable import Fleet

/// The fleet registry (what `audit` reports) on the journal's database: sightings and reads merge into one row per
/// device, a value a sighting does not carry is kept, the RSSI/battery history is pruned to its limit, the
/// last `apply` and `dfu` come from the journal's runs, and a password never reaches the file.
@Suite("Fleet registry", .timeLimit(.minutes(1))) struct FleetRegistryTests {
  static let a = "DD:34:02:06:D1:01"
  static let b = "DD:34:02:06:D1:02"
  /// Whole seconds, which the database keeps exactly (it stores milliseconds).
  static func time(_ seconds: Int) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + Double(seconds)) }

  /// A scan's record of `address` with these frames, heard at `rssi` (127: no RSSI).
  static func sighting(_ address: String, rssi: Int8 = -60, name: String? = nil, _ frames: [BeaconFrame])
    -> DeviceRecord
  {
    let report = AdvertisingReport(
      address: BluetoothAddress(address)!, addressType: .random, kind: .connectable, rssi: rssi, data: [])
    var record = DeviceRecord(report: report, decoded: DecodedAdvertisement(elements: [], frames: frames), at: 0)
    record.name = name
    return record
  }

  static func system(_ address: String, battery: UInt8, minor: UInt8 = 22) -> BeaconFrame {
    .kkmSystem(
      KKMSystemFrame(
        model: 12, batteryPercent: battery, macAddress: BluetoothAddress(address)!, firmwareMajor: 5,
        firmwareMinor: minor))
  }

  static let iBeacon = BeaconFrame.iBeacon(
    IBeaconFrame(uuid: ProximityUUID(high: 1, low: 2), major: 1, minor: 2, measuredPower: -59))

  /// A KBeacon Pro's configuration as a read reports it.
  static func configuration(battery: Int = 97, name: String = "lobby-1", extra: [String: SettingValue] = [:])
    -> DeviceConfigView
  {
    DeviceConfigView(
      common: [
        "model": .text("KBPro_SIM"), "ver": .text("V5.22"), "hver": .text("V1.0"), "btPt": .integer(battery),
        "name": .text(name),
      ]
      .merging(extra) { $1 },
      slots: [0: ["slot": .integer(0), "type": .integer(5), "advPrd": .number(1000), "majorID": .integer(7)]])
  }

  @Test func sightingsMergeAndASightingWithoutBatteryKeepsTheKnownOne() async throws {
    let registry = FleetRegistry(journal: try Journal(path: nil))
    let sensor = BeaconFrame.kSensor(KSensorFrame(mask: 1, batteryMillivolts: 3010))
    try await registry.recordSightings(
      [
        Self.sighting(Self.a, name: "KBPro_1", [Self.system(Self.a, battery: 95), sensor]),
        Self.sighting(Self.b, [Self.iBeacon]),
      ],
      at: Self.time(0))
    try await registry.recordSightings([Self.sighting(Self.a, rssi: -71, [Self.iBeacon])], at: Self.time(60))

    let devices = try await registry.devices()
    #expect(devices.map(\.address) == [Self.a, Self.b])
    let d = try #require(devices.first)
    #expect(d.firstSeen == Self.time(0) && d.lastSeen == Self.time(60) && d.addressType == "random")
    #expect(d.name == "KBPro_1" && d.lastRSSI == -71 && d.frames == ["iBeacon"])
    #expect(d.batteryPercent == 95 && d.batteryMillivolts == 3010)
    #expect(d.model == "KKM model 12" && d.firmwareVersion == "5.22" && d.configurationHash == nil)
    #expect(
      try await registry.history(Self.a) == [
        RegistryReading(at: Self.time(0), rssi: -60, batteryPercent: 95, batteryMillivolts: 3010),
        RegistryReading(at: Self.time(60), rssi: -71),
      ])
    #expect(try await registry.device(Self.a.lowercased()) == d)
    #expect(try await registry.device("AA:BB:CC:DD:EE:FF") == nil)
  }

  @Test func aReadNamesTheDeviceAndLaterSightingsKeepItsModelString() async throws {
    let registry = FleetRegistry(journal: try Journal(path: nil))
    try await registry.recordRead(address: Self.a.lowercased(), configuration: Self.configuration(), at: Self.time(0))
    var d = try #require(try await registry.device(Self.a))
    #expect(d.model == "KBPro_SIM" && d.hardwareVersion == "V1.0" && d.firmwareVersion == "5.22" && d.name == "lobby-1")
    #expect(d.batteryPercent == 97 && d.configurationReadAt == Self.time(0) && d.frames == [])
    let hash = try #require(d.configurationHash)
    #expect(hash.count == 64 && hash.allSatisfy { $0.isHexDigit && !$0.isUppercase })

    // A System frame after a DFU: its version is news, its model code is not a model string.
    try await registry.recordSightings(
      [Self.sighting(Self.a, [Self.system(Self.a, battery: 90, minor: 30)])], at: Self.time(10))
    d = try #require(try await registry.device(Self.a))
    #expect(d.model == "KBPro_SIM" && d.firmwareVersion == "5.30" && d.batteryPercent == 90)
    #expect(d.configurationHash == hash && d.configurationReadAt == Self.time(0) && d.frames == ["kkmSystem"])
    #expect(try await registry.history(Self.a).map(\.batteryPercent) == [97, 90])
  }

  @Test func theFingerprintIgnoresKeyOrderAndTheBatteryButNotAValue() {
    let base = ConfigurationFingerprint(Self.configuration()).sha256
    #expect(ConfigurationFingerprint(Self.configuration(battery: 40)).sha256 == base)
    var reordered = Self.configuration()
    reordered.slots[0]?["advPrd"] = .integer(1000)  // the same number, spelt as an integer
    #expect(ConfigurationFingerprint(reordered).sha256 == base)
    #expect(ConfigurationFingerprint(Self.configuration(name: "lobby-2")).sha256 != base)
  }

  @Test func historyKeepsTheNewestPointsOnly() async throws {
    let registry = FleetRegistry(journal: try Journal(path: nil), historyLimit: 4)
    for i in 0..<6 {
      try await registry.recordSightings([Self.sighting(Self.a, rssi: Int8(-50 - i), [])], at: Self.time(i))
    }
    // No RSSI (HCI's 127) and no battery: the device is seen, but no point is added.
    try await registry.recordSightings([Self.sighting(Self.a, rssi: 127, [Self.iBeacon])], at: Self.time(9))
    let history = try await registry.history(Self.a)
    #expect(history.map(\.rssi) == [-52, -53, -54, -55])
    #expect(history.map(\.at) == (2..<6).map(Self.time))
    let d = try #require(try await registry.device(Self.a))
    #expect(d.lastRSSI == -55 && d.lastSeen == Self.time(9))
  }

  @Test func lastApplyAndLastDFUComeFromTheJournalsRuns() async throws {
    let journal = try Journal(path: nil)
    let registry = FleetRegistry(journal: journal)
    try await registry.recordSightings(
      [Self.sighting(Self.a, [Self.iBeacon]), Self.sighting(Self.b, [Self.iBeacon])], at: Self.time(0))

    let first = try await journal.createRun(
      kind: "apply", source: "p.json", adapter: "sim", addresses: [Self.a, Self.b], now: Self.time(1))
    try await journal.record(run: first, address: Self.a, state: .failed, detail: "link lost", failureKind: .transient)
    try await journal.record(run: first, address: Self.b, state: .verified)
    try await journal.finish(run: first, status: "finished")
    let dfu = try await journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "sim", addresses: [Self.a], now: Self.time(2))
    try await journal.record(run: dfu, address: Self.a, state: .verified)
    let second = try await journal.createRun(
      kind: "apply", source: "p.json", adapter: "sim", addresses: [Self.a], now: Self.time(3))
    try await journal.record(run: second, address: Self.a, state: .compliant)
    // A plan changes nothing: not a link.
    _ = try await journal.createRun(
      kind: "plan", source: "p.json", adapter: "sim", addresses: [Self.a, Self.b], now: Self.time(4))

    let devices = try await registry.devices()
    let a = try #require(devices.first { $0.address == Self.a })
    let b = try #require(devices.first { $0.address == Self.b })
    #expect(a.lastApply?.run == second && a.lastApply?.kind == "apply" && a.lastApply?.outcome == "compliant")
    #expect(a.lastDFU?.run == dfu && a.lastDFU?.kind == "dfu" && a.lastDFU?.outcome == "verified")
    #expect(b.lastApply?.run == first && b.lastApply?.outcome == "verified" && b.lastDFU == nil)
    let journalled = try #require(try await journal.device(run: second, address: Self.a))
    #expect(a.lastApply?.at == journalled.updatedAt)
    #expect(try await registry.device(Self.a) == a)

    try await journal.record(run: first, address: Self.b, state: .failed, detail: "read-back differs")
    #expect(try await registry.device(Self.b)?.lastApply?.detail == "read-back differs")
  }

  @Test func aPasswordInAReadLeavesNoTraceInTheDatabaseFile() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let secret = "Sup3r-S3cret-42"
    let journal = try Journal(path: folder + "/journal.sqlite")
    let registry = FleetRegistry(journal: journal)
    var configuration = Self.configuration(extra: ["pwd": .text(secret)])
    configuration.slots[1] = ["slot": .integer(1), "newPassword": .text(secret), "PWDHint": .text(secret)]
    try await registry.recordRead(address: Self.a, configuration: configuration, at: Self.time(0))

    let fingerprint = ConfigurationFingerprint(configuration)
    #expect(!fingerprint.canonicalJSON.contains(secret) && !fingerprint.canonicalJSON.lowercased().contains("pwd"))
    var without = configuration
    without.common["pwd"] = nil
    without.slots[1] = ["slot": .integer(1)]
    #expect(fingerprint.sha256 == ConfigurationFingerprint(without).sha256)
    #expect(try await registry.device(Self.a)?.configurationHash == fingerprint.sha256)

    // Every file of the database (main file, WAL, shared memory), byte for byte.
    let files = try FileManager.default.contentsOfDirectory(atPath: folder)
    #expect(files.contains("journal.sqlite"))
    for file in files {
      let bytes = try #require(FileManager.default.contents(atPath: folder + "/" + file))
      #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the password")
    }
  }

  @Test func aJournalMadeBeforeTheRegistryGainsItsTables() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-v2-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    do {
      let old = try DatabaseQueue(path: folder + "/journal.sqlite")
      try Journal.migrator.migrate(old, upTo: "v2")
    }
    let registry = FleetRegistry(journal: try Journal(path: folder + "/journal.sqlite"))
    try await registry.recordSightings([Self.sighting(Self.a, [])], at: Self.time(0))
    #expect(try await registry.devices().map(\.address) == [Self.a])
  }
}
