import BeaconCore
import Fleet
import Foundation
import Testing

/// The GATT cache between processes, through the built CLI: four `read`s of four simulated KBeacons run
/// at once as four processes sharing one state directory, each saving its device's entry into the one
/// `gatt-cache.json`; the file then holds all four, and a later process finds its device there (`-v` logs
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
}
