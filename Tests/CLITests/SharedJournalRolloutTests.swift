import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `dfu update --rollout` and `--max-failures` against a shared journal (a real PostgreSQL server): waves
/// across gateways are not built, so both are refused before any device is written.
@Suite(.isolatedState, .timeLimit(.minutes(2))) struct SharedJournalRolloutTests {
  /// On a shared journal (`--journal`, a real PostgreSQL server) a rollout is refused, and so is
  /// `--max-failures` with `--resume`: a resumed shared run reads no recorded rollout, so the threshold would be
  /// accepted and ignored. Both are refused before any device is written.
  @Test func aRolloutOrAThresholdOnASharedJournalIsRefusedBeforeAnyWrite() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let fleet = try DFUFleetCampaignTests.fleet(count: 3, extra: [:])
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    for extra in [
      ["--rollout", "canary=1,waves=100%"], ["--resume", "some-run", "--max-failures", "50%"],
    ] {
      let error = await #expect(throws: CLIFailure.self, "\(extra)") {
        _ = try await DFURolloutTests.run(
          extra + ["--journal", url, "--gateway", "gw-1"], fleet: fleet, package: package)
      }
      #expect(error?.message.contains("with a shared journal (--journal) they are not supported yet") == true)
    }
    #expect(try DFURolloutTests.firmwareWrites(fleet).isEmpty)
    await server.stop()
  }
}
