import BeaconCore
import Foundation
import GRDB
import Profiles
import Testing

@testable import Fleet

/// How a campaign stops: on Ctrl-C during a retry pause, on a journal it cannot write, and that every
/// session it opened is closed on the way out.
@Suite("Campaign stop", .timeLimit(.minutes(1))) struct CampaignStopTests {
  typealias Fixture = ApplyCampaignTests.Fixture

  @Test func aStopCutsARetryPauseShortAndLeavesTheDevicePending() async throws {
    let f = try Fixture(count: 1)
    await f.devices.values.first!.setDrops(10)
    let (pauses, paused) = AsyncStream.makeStream(of: Duration.self)
    // An hour's pause: only a stop that cancels it lets the test finish within its time limit.
    let campaign = ApplyCampaign(
      profile: try ApplyCampaignTests.loaded(), targets: f.targets, opener: FakeOpener(devices: f.devices),
      journal: f.journal,
      run: try await f.newRun(),
      options: .init(
        parallel: 1, retry: RetryPolicy(maximumAttempts: 3, firstDelay: .seconds(3600), maximumDelay: .seconds(3600))),
      passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }),
      sleep: { delay in
        paused.yield(delay)
        try await Task.sleep(for: delay)
      })
    let running = Task { await campaign.start() }
    var iterator = pauses.makeAsyncIterator()
    #expect(await iterator.next() == .seconds(3600))
    await campaign.requestStop()
    let summary = await running.value
    #expect(summary.interrupted)
    #expect(summary.outcomes.values.first == .pending)
    #expect(await f.devices.values.first!.opens == 1)
  }

  @Test func aJournalThatCannotBeWrittenStopsTheCampaignBeforeAnyDeviceIsWritten() async throws {
    let f = try Fixture(count: 4)
    let run = try await f.newRun()
    // From here on every device row update fails, as on a full or read-only disk.
    try await f.journal.database.write { db in
      try db.execute(
        sql: "CREATE TRIGGER full BEFORE UPDATE ON device BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END")
    }
    let summary = try await f.campaign(run: run, parallel: 1).start()
    let failure = try #require(summary.journalFailure)
    #expect(failure.location == "(in memory)")
    #expect(failure.reason.contains("database or disk is full"))
    #expect(summary.interrupted && summary.count(.pending) == 4)
    for d in f.devices.values {
      #expect(await d.writes.isEmpty)
      // The link opened beside the failed `connecting` record is closed again.
      #expect(await d.openSessions.isEmpty)
    }
  }

  /// The `connecting` record fails while the connect beside it fails too: the journal's failure wins (the
  /// campaign stops; no retry is scheduled for a device whose attempt was never recorded).
  @Test func aJournalFailureWinsOverAConnectThatFailedBesideIt() async throws {
    let f = try Fixture(count: 1)
    let device = try #require(f.devices.values.first)
    await device.setDrops(10)
    let run = try await f.newRun()
    try await f.journal.database.write { db in
      try db.execute(
        sql: "CREATE TRIGGER full BEFORE UPDATE ON device BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END")
    }
    let summary = try await f.campaign(run: run, parallel: 1).start()
    #expect(try #require(summary.journalFailure).reason.contains("database or disk is full"))
    #expect(summary.interrupted && summary.outcomes.values.first == .pending)
    #expect(await device.opens == 1)
  }

  @Test func aWrittenRecordThatFailsBesideTheReadBackStopsTheCampaignWithTheWriteLanded() async throws {
    let f = try Fixture(count: 1)
    let run = try await f.newRun()
    // Only the record after the write fails; it commits while the values are read back.
    try await f.journal.database.write { db in
      try db.execute(
        sql: """
          CREATE TRIGGER full BEFORE UPDATE ON device WHEN NEW.step = 'written'
          BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END
          """)
    }
    let summary = try await f.campaign(run: run, parallel: 1).start()
    let failure = try #require(summary.journalFailure)
    #expect(failure.reason.contains("database or disk is full"))
    let device = try #require(f.devices.values.first)
    #expect(await device.writes.count == 1)
    #expect(await device.openSessions.isEmpty)
    // The row still says `writing` with the values: a resume finds them on the device (`LandedWrite`).
    let row = try #require(try await f.journal.devices(run: run).first)
    #expect(row.step == "writing" && row.changes != nil)
    #expect(summary.interrupted && summary.outcomes.values.first == .pending)
  }

  @Test func theVerifierSessionIsClosedWhenItsReadFails() async throws {
    let f = try Fixture(count: 1)
    let device = try #require(f.devices.values.first)
    await device.setDropReadsAfterWrite()
    let passwords = ApplyCampaign.Passwords(current: Secret("0000000000000000"), new: Secret("n3w-Secret-pw"))
    let summary = try await f.campaign(run: try await f.newRun(), passwords: passwords).start()
    #expect(summary.failed)
    #expect(await device.opens >= 2)
    #expect(await device.openSessions.isEmpty)
  }
}

extension FakeDevice {
  func setDropReadsAfterWrite() { dropReadsAfterWrite = true }
}
