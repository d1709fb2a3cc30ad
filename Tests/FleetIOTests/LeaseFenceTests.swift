import Fleet
import Foundation
import TestServers
import Testing

@testable import FleetIO

/// Leases held by a process instance, fenced writes and reconnects on a real server (several
/// gateways: fencing, same names, reconnects).
@Suite(.timeLimit(.minutes(3))) struct LeaseFenceTests {
  static let a = "C3:00:00:00:00:01"

  /// A gateway process on `url`: its own connection and instance, the run "site" with device a, a heard.
  static func gateway(_ server: PostgresServer, _ url: String, name: String, lease: Double) async throws
    -> GatewayCoordinator
  {
    let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: name)
    _ = try await journal.createRun(kind: "apply", source: "p.json", adapter: "hci0", addresses: [a], id: "site")
    let coordinator = GatewayCoordinator(journal: journal, settings: CoordinationSettings(leaseSeconds: lease))
    try await coordinator.join(run: "site")
    try await coordinator.recordSightings([a: -70])
    return coordinator
  }

  static func state(_ g: GatewayCoordinator) async throws -> DeviceState? {
    try await g.journal.device(run: "site", address: a)?.state
  }

  @Test func twoProcessesUnderOneGatewayNameNeverHoldTheSameDevice() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let first = try await Self.gateway(server, url, name: "host-1", lease: 30)
      let second = try await Self.gateway(server, url, name: "host-1", lease: 30)
      #expect(first.journal.instance != second.journal.instance)
      #expect(try await first.claim(run: "site", address: Self.a) == .claimed)
      // When leases belonged to gateway names, the same name retook the lease: both wrote the device.
      #expect(try await second.claim(run: "site", address: Self.a) == .held(by: "host-1"))
      // The second's heartbeat renews only its own leases; its release removes none of the first's.
      try await second.heartbeat(run: "site")
      try await second.release(run: "site", address: Self.a)
      #expect(try await second.claim(run: "site", address: Self.a) == .held(by: "host-1"))
      try await first.journal.record(run: "site", address: Self.a, state: .verified, countWrite: true)
      try await first.release(run: "site", address: Self.a)
      #expect(try await second.claim(run: "site", address: Self.a) == .done)
    }
  }

  @Test func aGatewayWhoseLeaseAnotherTookCannotRecordAndItsRowStaysTheOthers() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      // gw-1's leases last 0 s: as if it were paused past its lease right after claiming.
      let paused = try await Self.gateway(server, url, name: "gw-1", lease: 0)
      let other = try await Self.gateway(server, url, name: "gw-2", lease: 30)
      #expect(try await paused.claim(run: "site", address: Self.a) == .claimed)
      #expect(try await other.claim(run: "site", address: Self.a) == .claimed)
      try await other.journal.record(run: "site", address: Self.a, state: .working, step: "writing")
      // gw-1 resumes: its write is refused, nothing of gw-2's row changes, and it learns the device is lost.
      await #expect(throws: LeaseLostError(address: Self.a, run: "site")) {
        try await paused.journal.record(run: "site", address: Self.a, state: .working, step: "writing")
      }
      await #expect(throws: LeaseLostError.self) {
        try await paused.journal.record(run: "site", address: Self.a, state: .verified, countWrite: true)
      }
      #expect(paused.journal.lostLeases() == [Self.a])
      #expect(paused.journal.lostLeases().isEmpty)
      // Its heartbeat does not renew gw-2's lease, nor does its release remove it.
      try await paused.heartbeat(run: "site")
      try await paused.release(run: "site", address: Self.a)
      try await other.journal.record(run: "site", address: Self.a, state: .verified, countWrite: true)
      let row = try #require(try await other.journal.device(run: "site", address: Self.a))
      #expect(row.state == .verified && row.writes == 1)
    }
  }

  /// `writing` precedes an `apply` write, `transferring` a `dfu update` image.
  @Test(arguments: ["writing", "transferring"]) func aWriteToTheDeviceStartsOnlyWithAThirdOfTheLeaseLeft(step: String)
    async throws
  {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let g = try await Self.gateway(server, url, name: "gw-1", lease: 9)
      #expect(try await g.claim(run: "site", address: Self.a) == .claimed)
      try await g.journal.record(run: "site", address: Self.a, state: .working, step: step)
      // Unrenewed for at least 6.1 s (the sleep is a lower bound, however loaded the machine): at most 2.9 s
      // left, less than the 3 s a write needs, and a plain record still has 2.9 s of stalls to spare.
      try await Task.sleep(for: .milliseconds(6100))
      try await g.journal.record(run: "site", address: Self.a, state: .working, step: "reading")
      await #expect(throws: LeaseLostError.self) {
        try await g.journal.record(run: "site", address: Self.a, state: .working, step: step)
      }
      #expect(try await Self.state(g) == .working)
      // Nobody took it: claimed again (a fresh lease and generation), the write may start.
      #expect(try await g.claim(run: "site", address: Self.a) == .claimed)
      try await g.journal.record(run: "site", address: Self.a, state: .working, step: step)
    }
  }
}
