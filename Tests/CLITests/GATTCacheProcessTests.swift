import BeaconCore
import Fleet
import Foundation
import Testing

/// The GATT cache between processes, through the built CLI: four `read`s of four simulated KBeacons run
/// at once as four processes sharing one state directory, each saving its device's entry into the one
/// `gatt-cache.jsonl`; the file then holds all four, and a later process finds its device there (`-v` logs
/// "gatt cache … outcome=hit"). `--no-gatt-cache` discovers and leaves the file as it was.
@Suite(.timeLimit(.minutes(3))) struct GATTCacheProcessTests {
  static let devices = ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02", "DD:34:02:06:D1:03", "DD:34:02:06:D1:04"]

  @Test func processesAtOnceShareTheCacheAndALaterOneUsesIt() async throws {
    let state = NSTemporaryDirectory() + "gatt-cache-processes-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: state) }
    let environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": state]) { $1 }
    func read(_ device: String, _ extra: [String] = []) async throws -> (status: Int32, output: String, errors: String)
    {
      try await CLIProcess.run(
        ["read", device, "--adapter", "sim", "--address-type", "public", "-v"] + extra, environment: environment)
    }
    let firsts = try await withThrowingTaskGroup(of: (String, Int32, String).self) { group in
      for device in Self.devices {
        group.addTask {
          let r = try await read(device)
          return (device, r.status, r.errors)
        }
      }
      return try await group.reduce(into: [:]) { $0[$1.0] = ($1.1, $1.2) }
    }
    for device in Self.devices {
      #expect(firsts[device]?.0 == 0, "\(device): \(firsts[device]?.1 ?? "")")
      #expect(firsts[device]?.1.contains("gatt cache device=\(device) outcome=no entry") == true)
    }
    let path = GATTCacheFile.path(stateDirectory: state + "/beacon-provision")
    let entries = try GATTCacheFileFormat.decode(Array(try #require(FileManager.default.contents(atPath: path))))
      .entries
    #expect(Set(entries.keys.map(\.address.description)) == Set(Self.devices))
    #expect(entries.values.allSatisfy { $0.databaseHash?.count == 16 })

    let again = try await read(Self.devices[2])
    #expect(again.status == 0)
    #expect(again.errors.contains("gatt cache device=\(Self.devices[2]) outcome=hit"))

    let before = FileManager.default.contents(atPath: path)
    let without = try await read(Self.devices[3], ["--no-gatt-cache"])
    #expect(without.status == 0)
    #expect(!without.errors.contains("gatt cache"))
    #expect(FileManager.default.contents(atPath: path) == before)
  }

  /// `audit --connect` reads through the same cache as `plan`: an audit saves the device's handles into the
  /// state directory's `gatt-cache.jsonl` (before, its reads discovered every time and kept nothing), a later
  /// audit keeps the entry; `--no-gatt-cache` on a fresh state directory writes no cache at all.
  @Test func auditConnectUsesTheCache() async throws {
    let state = NSTemporaryDirectory() + "gatt-cache-audit-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: state) }
    let device = Self.devices[0]
    let profile = state + "/profile.json"
    try #"{"version": 1, "select": {"addresses": ["\#(device)"]}, "desired": {"name": "audited"}}"#
      .write(toFile: profile, atomically: true, encoding: .utf8)
    func audit(_ stateDirectory: String, _ extra: [String] = []) async throws -> (
      status: Int32, output: String, errors: String
    ) {
      try await CLIProcess.run(
        ["audit", profile, "--connect", "--adapter", "sim", "--scan", "2", "--state-dir", stateDirectory] + extra)
    }
    func entries(_ stateDirectory: String) throws -> [String] {
      guard let bytes = FileManager.default.contents(atPath: GATTCacheFile.path(stateDirectory: stateDirectory)) else {
        return []
      }
      return try GATTCacheFileFormat.decode(Array(bytes)).entries.keys.map(\.address.description)
    }
    for round in 1...2 {
      let run = try await audit(state + "/s")
      #expect(run.status == 0, "\(run.errors)")
      #expect(run.output.contains("| \(device) | KBPro\\_214811 | drifted |"), "round \(round): \(run.output)")
      #expect(try entries(state + "/s") == [device], "round \(round)")
    }
    let without = try await audit(state + "/n", ["--no-gatt-cache"])
    #expect(without.status == 0 && without.output.contains("| \(device) | KBPro\\_214811 | drifted |"))
    #expect(!FileManager.default.fileExists(atPath: GATTCacheFile.path(stateDirectory: state + "/n")))
  }
}

/// `dfu update` reads each device's identity before and after its update through the state directory's GATT
/// cache: after an update of one simulated KBeacon the cache holds its entry (before, the campaign's reads
/// discovered every time and kept nothing); `--no-gatt-cache` writes none.
@Suite(.timeLimit(.minutes(3))) struct DFUGATTCacheTests {
  @Test func dfuUpdateSavesTheUpdatedDevicesEntry() async throws {
    let folder = NSTemporaryDirectory() + "gatt-cache-dfu-" + UUID().uuidString
    let (fleet, package) = (try DFUFleetCampaignTests.fleet(count: 1), try DFUFleetPackages.application(version: 530))
    defer { for path in [folder, fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let device = DFUFleetCampaignTests.address(0)
    func update(_ state: String, _ extra: [String] = []) async throws -> (status: Int32, output: String, errors: String)
    {
      try await CLIProcess.run(
        [
          "dfu", "update", "--package", package, "--adapter", "sim:\(fleet)", "--state-dir", state, "--scan", "2",
          "--retry-delay", "0", "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "5",
        ] + extra)
    }
    let cached = try await update(folder + "/s")
    #expect(cached.status == 0, "\(cached.errors)")
    let bytes = try #require(FileManager.default.contents(atPath: GATTCacheFile.path(stateDirectory: folder + "/s")))
    #expect(try GATTCacheFileFormat.decode(Array(bytes)).entries.keys.map(\.address.description) == [device])
    let without = try await update(folder + "/n", ["--no-gatt-cache"])
    #expect(without.status == 0, "\(without.errors)")
    #expect(!FileManager.default.fileExists(atPath: GATTCacheFile.path(stateDirectory: folder + "/n")))
  }
}

/// `plan` of a `commands` profile reads its text-stream device through the state directory's GATT cache, as
/// a KBeacon's reads are: a plan process saves the Nordic-UART device's text-stream service (before, its
/// links discovered every time and kept nothing), a second plan keeps it and plans the same commands;
/// `--no-gatt-cache` writes none.
@Suite(.timeLimit(.minutes(3))) struct TextStreamGATTCacheProcessTests {
  @Test func planOfACommandsProfileSavesTheDevicesTextStreamHandles() async throws {
    let folder = NSTemporaryDirectory() + "gatt-cache-text-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: folder) }
    func plan(_ state: String, _ extra: [String] = []) async throws -> (status: Int32, output: String, errors: String) {
      try await CLIProcess.run(
        [
          "plan", TextCommandApplyTests.example, "--adapter", "sim", "--scan", "2", "--retry-delay", "0",
          "--state-dir", state, "--json",
        ] + extra)
    }
    for round in 1...2 {
      let run = try await plan(folder + "/s")
      #expect(run.status == 0, "round \(round): \(run.errors)")
      #expect(run.output.contains("AT+NAME=dock-01"), "round \(round): \(run.output)")
      let bytes = try #require(FileManager.default.contents(atPath: GATTCacheFile.path(stateDirectory: folder + "/s")))
      let entries = try GATTCacheFileFormat.decode(Array(bytes)).entries
      let entry = try #require(entries.first { $0.key.address.description == TextCommandApplyTests.uart }?.value)
      #expect(entry.services.map(\.uuid.description) == ["6E400001-B5A3-F393-E0A9-E50E24DCCA9E"], "round \(round)")
    }
    let without = try await plan(folder + "/n", ["--no-gatt-cache"])
    #expect(without.status == 0, "\(without.errors)")
    #expect(!FileManager.default.fileExists(atPath: GATTCacheFile.path(stateDirectory: folder + "/n")))
  }
}
