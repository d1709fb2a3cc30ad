import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

/// `scan --journal` records what it heard into the fleet registry on the PostgreSQL server the gateways share
/// (`audit` reads the shared registry, so one report covers the whole site), not into its own
/// state directory; a URL carrying a password is refused before anything is scanned, without printing it.
@Suite(.timeLimit(.minutes(2))) struct SharedRegistryCommandTests {
  @Test func scanRecordsIntoTheSharedRegistry() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("shared-scan-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    let result = try await CLIProcess.run([
      "scan", "--adapter", "sim", "--duration", "2", "--json", "--state-dir", state, "--journal", url,
    ])
    #expect(result.status == 0, "\(result.errors)")

    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "test")
    let shared = try await FleetRegistry(store: PostgresRegistryStore(journal: journal)).devices()
    // The demo fleet's KBeacon Pros, heard in 2 s of scanning, are on the server…
    #expect(shared.contains { $0.address == "DD:34:02:06:D1:01" }, "\(shared.map(\.address))")
    #expect(shared.count >= 10)
    // …and not in the state directory's own registry.
    let local = try await FleetRegistry(journal: try Journal(path: state + "/journal.sqlite")).devices()
    #expect(local.isEmpty, "\(local.map(\.address))")
    await server.stop()
  }

  @Test func aPasswordInTheURLIsRefusedBeforeScanning() async throws {
    for command in [
      ["scan", "--adapter", "sim", "--duration", "1"], ["monitor", "--adapter", "sim", "--duration", "1"],
    ] {
      let result = try await CLIProcess.run(command + ["--journal", "postgresql://ops:s3cret@db.example/fleet"])
      #expect(result.status != 0)
      #expect(result.errors.contains("--journal"), "\(result.errors)")
      #expect(result.errors.contains("PGPASSWORD"), "\(result.errors)")
      #expect(!result.errors.contains("s3cret") && !result.output.contains("s3cret"))
    }
  }
}
