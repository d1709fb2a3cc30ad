import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// What every "a gateway stopped past its lease" test starts from: a real PostgreSQL server and database, a
/// `GatewaySite` that gw-1 hears clearly better than gw-2 (by more than the 6 dB margin, so gw-1 claims every
/// device, one at a time, while it is alive: only `target` is in flight when it stops), gw-1 started with a
/// `SimulatorPauseHook` at `target` and gw-2 beside it, both with a lease of 2 s. `start` returns once gw-1 has
/// said it stopped and really is stopped (SIGSTOP), its lease running out.
struct PausedGatewayPair {
  let server: PostgresServer
  let url: String
  let site: GatewaySite
  let target: String
  /// gw-1, stopped at the hook until `resumeAndFinish()`.
  let paused: GatewayProcess
  /// gw-2, which takes `target` over once gw-1's lease has expired.
  let other: GatewayProcess

  /// The gateways' command line (`GatewaySite.apply` or `GatewaySite.dfuUpdate`) for a journal URL, a
  /// parallelism (gw-1 1, gw-2 the site's default of 2) and extra options.
  typealias Command = (GatewaySite, String, Int, [String]) -> [String]

  /// `hook`: the pause hook's step (`before-write`, `before-transfer`, `before-connect`, `in-registry`);
  /// `said`: what gw-1's line on stopping contains before the address.
  static func start(
    count: Int, block: Int, target index: Int, hook: String, said: String, command: Command
  ) async throws -> PausedGatewayPair {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: count, block: block, heard: ["gw-1": -55, "gw-2": -70])
    try await site.prepareState()
    let target = site.address(index)
    let options = ["--lease", "2", "--gateways", "2", "--settle", "60"]
    let paused = try GatewayProcess(
      command(site, url, 1, options + ["--gateway", "gw-1"]),
      environment: [SimulatorPauseHook.environmentVariable: "\(hook):\(target)"])
    let other = try GatewayProcess(command(site, url, 2, options + ["--gateway", "gw-2"]))
    let stopped = await paused.line { $0.contains("test hook: stopped \(said) \(target)") }
    if !stopped { Issue.record("gw-1 ended before it stopped at \(target): \(await paused.finish())") }
    try #require(stopped)
    #expect(await paused.isStopped(), "gw-1 said it stopped but is not")
    return PausedGatewayPair(server: server, url: url, site: site, target: target, paused: paused, other: other)
  }

  /// Whether `journal` shows `target` verified within a minute (polled twice a second): gw-2 took it over.
  func targetVerified(in journal: PostgresJournal) async throws -> Bool {
    for _ in 0..<120 {
      try await Task.sleep(for: .milliseconds(500))
      if try await journal.device(run: "site", address: target)?.state == .verified { return true }
    }
    return false
  }

  /// Resumes gw-1 (SIGCONT) and waits for both gateways, each of which must end with status 0.
  func resumeAndFinish() async {
    paused.signal(SIGCONT)
    for gateway in [paused, other] {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
  }

  /// The shared write log's `what` writes to `target` came from gw-2 alone, once.
  func expectTargetWrittenByTheOtherOnly(what: String) throws {
    let writes = try site.writeLog.writes().filter { $0.address == target && $0.what == what }
    #expect(writes.map(\.pid) == [other.process.processIdentifier], "\(writes)")
  }

  /// Stops the server and removes the site's folder.
  func stop() async {
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
