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
    let pair = try await PausedGatewayPair.start(
      count: 6, block: 4, target: 1, hook: "before-transfer", said: "before transferring"
    ) { site, url, parallel, options in
      site.dfuUpdate(journal: url, package: Self.package, parallel: parallel, options)
    }
    let journal = try await PostgresJournal(
      connection: try await PostgresConnection.connect(try PostgresURL(pair.url, origin: "test")), gateway: "test")
    // gw-2 takes the device over once gw-1's lease has expired, and updates it.
    #expect(try await pair.targetVerified(in: journal), "gw-2 did not update \(pair.target): \(pair.other.tail.text)")
    await pair.resumeAndFinish()
    // Every device installed one image; the lost device's came from gw-2.
    let site = pair.site
    let images = try site.writeLog.counts(what: "firmware")
    let expected = Dictionary(uniqueKeysWithValues: (0..<site.count).map { (site.address($0), 1) })
    #expect(images == expected)
    try pair.expectTargetWrittenByTheOtherOnly(what: "firmware")
    let rows = try await journal.devices(run: "site")
    #expect(rows.count == site.count && rows.allSatisfy { $0.state == .verified }, "\(rows)")
    await journal.connection.close()
    await pair.stop()
  }
}
