import Fleet
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// Fencing after a pause, for DFU where it matters most: two `dfu update` gateways share a PostgreSQL journal and
/// one simulated site; one stops itself (`SimulatorPauseHook`, `before-transfer:ADDRESS`) just before the
/// fenced record that precedes a device's transfer, stays stopped past its lease, and is resumed once the
/// other gateway has taken the device over and updated it. Proof from the simulated devices' shared write
/// log (`SimulatorWriteLog`, every image any process's device installed): every device got its image
/// exactly once, and the stopped gateway sent none to the device it lost.
@Suite(.timeLimit(.minutes(4))) struct SeveralGatewaysDFUFencingTests {
  static let package = DFUCommandTests.fixture("app_unsigned.zip")  // nrfutil 6.1.7: installs V660.51

  @Test func aDFUGatewayPausedPastItsLeaseBeforeATransferSendsNothing() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let site = try GatewaySite(count: 6, block: 4, heard: ["gw-1": -55, "gw-2": -70])
    try await site.prepareState()
    let target = site.address(1)
    let options = ["--lease", "2", "--gateways", "2", "--settle", "60"]
    // gw-1 hears every device clearly better (by more than the 6 dB margin), so it claims them all, one at a
    // time, while it is alive: only `target` is in flight when it stops.
    let paused = try GatewayProcess(
      site.dfuUpdate(journal: url, package: Self.package, parallel: 1, options + ["--gateway", "gw-1"]),
      environment: [SimulatorPauseHook.environmentVariable: "before-transfer:\(target)"])
    let other = try GatewayProcess(
      site.dfuUpdate(journal: url, package: Self.package, options + ["--gateway", "gw-2"]))
    let stopped = await paused.line { $0.contains("test hook: stopped before transferring \(target)") }
    if !stopped { Issue.record("gw-1 ended before it stopped at \(target): \(await paused.finish())") }
    try #require(stopped)
    #expect(await paused.isStopped(), "gw-1 said it stopped but is not")
    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(url, origin: "test")), gateway: "test")
    // gw-2 takes the device over once gw-1's lease has expired, and updates it.
    var taken = false
    for _ in 0..<120 where !taken {
      try await Task.sleep(for: .milliseconds(500))
      taken = try await journal.device(run: "site", address: target)?.state == .verified
    }
    #expect(taken, "gw-2 did not update \(target): \(other.tail.text)")
    paused.signal(SIGCONT)
    for gateway in [paused, other] {
      let (status, text) = await gateway.finish()
      #expect(status == 0, "\(text)")
    }
    // Every device installed one image; the lost device's came from gw-2.
    let images = try site.writeLog.counts(what: "firmware")
    let expected = Dictionary(uniqueKeysWithValues: (0..<site.count).map { (site.address($0), 1) })
    #expect(images == expected)
    let writes = try site.writeLog.writes().filter { $0.address == target && $0.what == "firmware" }
    #expect(writes.map(\.pid) == [other.process.processIdentifier], "\(writes)")
    let rows = try await journal.devices(run: "site")
    #expect(rows.count == site.count && rows.allSatisfy { $0.state == .verified }, "\(rows)")
    await journal.connection.close()
    await server.stop()
    try? FileManager.default.removeItem(atPath: site.folder)
  }
}
