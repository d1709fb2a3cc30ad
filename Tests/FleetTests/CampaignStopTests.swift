import BeaconCore
import Foundation
import GRDB
import Profiles
import Synchronization
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

  /// `Campaign.Options.mayStart` (`reconcile --maintenance-window` closing mid-pass): once it says no, no
  /// further device is started — they stay pending, never connected to — while the device already started goes
  /// on to its end, its retry after a dropped link included (a stop would have cut that pause short).
  @Test func aClosedStartLeavesTheRestPendingAndTheStartedDeviceRetriesToItsEnd() async throws {
    let f = try Fixture(count: 3)
    let first = f.targets[0].address
    await f.devices[first]!.setDrops(1)
    let asked = Mutex(0)
    let work = ApplyCampaign.work(
      profile: try ApplyCampaignTests.loaded(), opener: FakeOpener(devices: f.devices),
      passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }),
      dryRun: false)
    let campaign = Campaign(
      work: work, targets: f.targets, journal: f.journal, run: try await f.newRun(),
      options: .init(
        parallel: 1, retry: RetryPolicy(maximumAttempts: 3, firstDelay: .zero),
        mayStart: {
          asked.withLock {
            $0 += 1
            return $0 == 1
          }
        }),
      sleep: { _ in })
    let summary = await campaign.start()
    #expect(summary.outcomes[first.description]?.state == .verified, "\(summary.outcomes)")
    #expect(summary.count(.pending) == 2 && summary.interrupted)
    #expect(await f.devices[first]!.opens == 2, "the started device's retry did not run")
    for target in f.targets.dropFirst() { #expect(await f.devices[target.address]!.opens == 0) }
  }

  @Test func aJournalThatCannotBeWrittenStopsTheCampaignBeforeAnyDeviceIsWritten() async throws {
    let f = try Fixture(count: 4)
    let run = try await f.newRun()
    // From here on every device row update fails, as on a full or read-only disk.
    try await f.failUpdates(of: "device")
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
    try await f.failUpdates(of: "device")
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

extension CampaignStopTests {
  /// The start loop launches several visits at once, and each reaches the campaign later: a stop that came in
  /// between (Ctrl-C, a journal failure) leaves such a visit's device as one never started — pending, and
  /// not connected to. Driven as the start loop's launch would: a permit taken, the stop, then the visit.
  @Test func aVisitThatStartsAfterAStopLeavesItsDeviceUntouched() async throws {
    let f = try Fixture(count: 1)
    let campaign = try f.campaign(run: try await f.newRun(), parallel: 2).campaign
    #expect(await campaign.takeFreePermit())
    await campaign.requestStop()
    #expect(await campaign.visit(try #require(f.targets.first)) == .pending)
    #expect(await f.devices.values.first!.opens == 0)
  }

  /// Asks the campaign to stop, then is refused a link: a connect that met the adapter's limit (or one of our
  /// links' teardown) right after Ctrl-C.
  final class RefusedAfterStop: CampaignWork {
    /// Held weakly: the campaign holds this work (a strong reference made a cycle LeakSanitizer reported).
    struct Weak { weak var campaign: Campaign? }
    let campaign = Mutex(Weak())
    func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome {
      await campaign.withLock { $0.campaign }?.requestStop()
      throw LinkError(.tooManyLinks, peer: target.address, detail: "5 link(s) already open on this adapter")
    }
  }

  /// The device was not reached: it is left pending for `--resume`, not failed.
  @Test func aLinkRefusedAfterAStopLeavesTheDevicePendingNotFailed() async throws {
    let journal = try Journal(path: nil)
    let address = "DD:34:02:06:D1:01"
    let run = try await journal.createRun(kind: "apply", source: "p.json", adapter: "test", addresses: [address])
    let work = RefusedAfterStop()
    let campaign = Campaign(
      work: work, targets: [Target(address: BluetoothAddress(address)!)], journal: journal, run: run,
      options: .init(parallel: 2), sleep: { _ in })
    work.campaign.withLock { $0.campaign = campaign }
    let summary = await campaign.start()
    #expect(summary.interrupted && summary.outcomes[address] == .pending)
    #expect(try await journal.device(run: run, address: address)?.state == .pending)
  }

  /// Every device ended, but the run's end could not be journalled: the summary says interrupted, as the
  /// journal failure it carries does (and `--resume` finds the run unfinished).
  @Test func aRunWhoseEndCannotBeJournalledIsInterrupted() async throws {
    let f = try Fixture(count: 2)
    let run = try await f.newRun()
    try await f.failUpdates(of: "run")
    let summary = try await f.campaign(run: run).start()
    #expect(summary.count(.verified) + summary.count(.compliant) == 2)
    #expect(summary.journalFailure != nil && summary.interrupted)
  }
}

extension ApplyCampaignTests.Fixture {
  /// From here on every update of `table`'s rows fails, as on a full or read-only disk.
  func failUpdates(of table: String) async throws {
    try await journal.database.write { db in
      try db.execute(
        sql: "CREATE TRIGGER full BEFORE UPDATE ON \(table) BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END")
    }
  }
}

extension FakeDevice {
  func setDropReadsAfterWrite() { dropReadsAfterWrite = true }
}
