import BeaconCore
import Foundation
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// What one `apply` visit commits to the journal: each record is a commit every link waits for (and, on the
/// shared journal, a round trip to the server), so a visit records only what a resume or the lease fence
/// needs — the attempt, the planned changes with the `writing` step just before the write, the write's
/// landing, the end — while its events still announce every step (`CampaignContext.announce`).
@Suite(.timeLimit(.minutes(1))) struct VisitJournalRecordsTests {
  /// Forwards to a `Journal`, keeping every update it was given and, for each, the writes the device had then
  /// (`writes`: a KBeacon's `cfg` writes, a text device's sets).
  final class RecordingJournal: CampaignJournal {
    let inner: Journal
    let writes: @Sendable () async -> Int
    let updates = Mutex<[(update: JournalUpdate, writesBefore: Int)]>([])
    /// As a shared journal's lease fence: records prove the device is still held.
    let fencesDevices: Bool
    /// Refuses the `connecting` record, as a fence refuses a lease another gateway took.
    let refusesConnecting: Bool
    init(
      _ inner: Journal, writes: @escaping @Sendable () async -> Int, fencesDevices: Bool = false,
      refusesConnecting: Bool = false
    ) {
      (self.inner, self.writes, self.fencesDevices, self.refusesConnecting) =
        (inner, writes, fencesDevices, refusesConnecting)
    }

    convenience init(_ inner: Journal, device: FakeDevice, fencesDevices: Bool = false, refusesConnecting: Bool = false)
    {
      self.init(
        inner, writes: { await device.writes.count }, fencesDevices: fencesDevices,
        refusesConnecting: refusesConnecting)
    }

    var location: String { inner.location }
    func record(_ update: JournalUpdate) async throws {
      let writes = await writes()
      updates.withLock { $0.append((update, writes)) }
      if refusesConnecting, update.step == VisitStep.connecting.rawValue {
        throw JournalWriteError(location: location, reason: "the lease was taken by another gateway")
      }
      try await inner.record(update)
    }
    func createRun(_ run: NewJournalRun) async throws -> String { try await inner.createRun(run) }
    func finish(run: String, status: String) async throws { try await inner.finish(run: run, status: status) }
    func run(_ id: String) async throws -> JournalRun? { try await inner.run(id) }
    func runs() async throws -> [JournalRun] { try await inner.runs() }
    func device(run: String, address: String) async throws -> JournalDevice? {
      try await inner.device(run: run, address: address)
    }
    func devices(run: String) async throws -> [JournalDevice] { try await inner.devices(run: run) }
  }

  /// An `apply` of one device, one attempt, in a new run of `journal`.
  static func campaign(_ address: BluetoothAddress, device: FakeDevice, journal: RecordingJournal) async throws
    -> ApplyCampaign
  {
    let run = try await journal.createRun(
      kind: "apply", source: "p.json", adapter: "test", addresses: [address.description])
    return ApplyCampaign(
      profile: try ApplyCampaignTests.loaded(), targets: [Target(address: address)],
      opener: FakeOpener(devices: [address: device]), journal: journal, run: run,
      options: .init(parallel: 1, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero)),
      passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }),
      sleep: { _ in })
  }

  @Test func aVisitCommitsTheAttemptThePlannedWriteItsLandingAndTheEndAndAnnouncesEveryStep() async throws {
    let address = BluetoothAddress("DD:34:02:06:D1:01")!
    let device = ApplyCampaignTests.device()
    let journal = RecordingJournal(try Journal(path: nil), device: device)
    let campaign = try await Self.campaign(address, device: device, journal: journal)
    let steps = Task {
      var seen: [VisitStep] = []
      for await event in campaign.events { if case .step(_, let step, _) = event { seen.append(step) } }
      return seen
    }
    let summary = await campaign.start()
    #expect(summary.count(.verified) == 1)
    #expect(await steps.value == [.connecting, .reading, .writing, .verifying])

    let updates = journal.updates.withLock { $0 }
    #expect(updates.map { $0.update.step } == ["connecting", "writing", "written", nil])
    #expect(updates.map { $0.update.state } == [.working, .working, .working, .verified])
    // The attempt is counted as the link opens; the changes are journalled in the `writing` record, before
    // the device got anything; the write is counted once it landed.
    #expect(updates[0].update.countAttempt && !updates[1].update.countAttempt)
    #expect(updates[1].update.changes?.map(\.key).sorted() == ["minorID", "name"])
    #expect(updates[1].writesBefore == 0 && updates[2].writesBefore == 1)
    #expect(updates.map { $0.update.countWrite } == [false, false, true, false])
  }

  /// The `connecting` record commits beside the link's opening, except on a journal whose records prove the
  /// lease: there a refused record means no link at all (a KBeacon takes one link, and authenticating sets
  /// its clock). Either way the refusal stops the visit with nothing written and no link left open.
  @Test(arguments: [false, true]) func aRefusedConnectingRecordOpensNoLinkOnAFencedJournal(fenced: Bool) async throws {
    let address = BluetoothAddress("DD:34:02:06:D1:02")!
    let device = ApplyCampaignTests.device()
    let journal = RecordingJournal(
      try Journal(path: nil), device: device, fencesDevices: fenced, refusesConnecting: true)
    let campaign = try await Self.campaign(address, device: device, journal: journal)
    let summary = await campaign.start()
    #expect(summary.journalFailure != nil && summary.count(.pending) == 1)
    #expect(await device.opens == (fenced ? 0 : 1))
    #expect(await device.writes.isEmpty)
    #expect(await device.openSessions.isEmpty)
  }
}
