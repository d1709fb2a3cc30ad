import BeaconCore
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// A scripted AT-command device for the text-command campaign's bookkeeping (the protocol itself runs
/// against the simulated Nordic-UART device in CLITests): `AT+KEY?` answers `+KEY:value` and `OK`,
/// `AT+KEY=value` sets it, every command is kept.
actor FakeATDevice {
  var settings: [String: String]
  var commands: [String] = []
  /// Apply this many upcoming sets, then drop the link before answering.
  var dropAfterSets = 0
  /// Answer sets `OK` without applying them.
  var ignoreSets = false

  init(_ settings: [String: String]) { self.settings = settings }

  func configure(dropAfterSets: Int = 0, ignoreSets: Bool = false) {
    self.dropAfterSets = dropAfterSets
    self.ignoreSets = ignoreSets
  }

  func answer(_ command: String) throws -> [String] {
    commands.append(command)
    guard command.hasPrefix("AT+") else { return ["ERROR"] }
    let body = command.dropFirst(3)
    if body.hasSuffix("?") {
      let key = String(body.dropLast())
      return settings[key].map { ["+\(key):\($0)", "OK"] } ?? ["ERROR"]
    }
    guard let equals = body.firstIndex(of: "=") else { return ["ERROR"] }
    if !ignoreSets { settings[String(body[..<equals])] = String(body[body.index(after: equals)...]) }
    if dropAfterSets > 0 {
      dropAfterSets -= 1
      throw LinkError(.disconnected, detail: "link dropped before the answer")
    }
    return ["OK"]
  }

  var sets: [String] { commands.filter { $0.contains("=") } }
}

struct FakeATOpener: TextCommandOpener {
  let devices: [BluetoothAddress: FakeATDevice]

  struct Session: TextCommandSession {
    let device: FakeATDevice
    func send(_ command: String, firstPacket: Duration?, interFragment: Duration?) async throws -> [String] {
      try await device.answer(command)
    }
    func close() async {}
  }

  func open(_ target: Target) async throws -> any TextCommandSession {
    guard let device = devices[target.address] else { throw LinkError(.unknownDevice, detail: "\(target.address)") }
    return Session(device: device)
  }
}

@Suite(.timeLimit(.minutes(1))) struct TextCommandWorkTests {
  static let addresses = ["6E:40:00:00:00:01", "6E:40:00:00:00:02"].map { BluetoothAddress($0)! }
  static let profile = #"""
    {"version": 1, "select": {"addresses": ["6E:40:00:00:00:01", "6E:40:00:00:00:02"]},
     "commands": [
       {"query": "AT+NAME?", "expect": "+NAME:dock-{{index}}", "set": "AT+NAME=dock-{{index}}"},
       {"query": "AT+INTERVAL?", "expect": "/\\+INTERVAL:50[0-9]/", "set": "AT+INTERVAL=500"},
       {"query": "AT+PIN?", "expect": "+PIN:4321", "set": "AT+PIN=4321", "secret": true}]}
    """#

  struct Fixture {
    let journal: Journal
    let devices: [BluetoothAddress: FakeATDevice]

    init() throws {
      journal = try Journal(path: nil)
      devices = [
        addresses[0]: FakeATDevice(["NAME": "old", "INTERVAL": "1000", "PIN": "0000"]),
        // Already compliant but for the interval, which the regular expression accepts as it is (505).
        addresses[1]: FakeATDevice(["NAME": "dock-1", "INTERVAL": "505", "PIN": "4321"]),
      ]
    }

    /// `recorder`, when given, is the journal the campaign writes to (it forwards to `journal`).
    func run(dryRun: Bool, through recorder: (any CampaignJournal)? = nil) async throws -> (CampaignSummary, String) {
      let journal: any CampaignJournal = recorder ?? self.journal
      let loaded = try LoadedProfile.load(file: "p.json", read: { _ in Array(profile.utf8) }, urlCheck: { _ in nil })
      let run = try await journal.createRun(
        kind: dryRun ? "plan" : "apply", source: "p.json", adapter: "test", addresses: addresses.map(\.description))
      let campaign = ApplyCampaign(
        textCommands: loaded, targets: addresses.map { Target(address: $0) }, opener: FakeATOpener(devices: devices),
        journal: journal, run: run,
        options: .init(parallel: 2, retry: RetryPolicy(maximumAttempts: 3, firstDelay: .zero), dryRun: dryRun),
        sleep: { _ in })
      return (await campaign.start(), run)
    }
  }

  @Test func planSendsOnlyQueriesAndApplySetsWhatDiffersThenVerifies() async throws {
    let f = try Fixture()
    let first = f.devices[Self.addresses[0]]!
    let second = f.devices[Self.addresses[1]]!
    let (plan, planRun) = try await f.run(dryRun: true)
    #expect(plan.count(.planned) == 1 && plan.count(.compliant) == 1)
    #expect(await first.sets.isEmpty)
    #expect(await second.sets.isEmpty)
    guard case .planned(let changes)? = plan.outcomes[Self.addresses[0].description] else {
      Issue.record("expected a plan for the first device")
      return
    }
    #expect(
      changes.map(\.description) == [
        #"command 0 AT+NAME?: answered "+NAME:old | OK" -> send "AT+NAME=dock-0""#,
        #"command 1 AT+INTERVAL?: answered "+INTERVAL:1000 | OK" -> send "AT+INTERVAL=500""#,
        #"command 2 AT+PIN?: answered "••••••••" -> send "••••••••""#,
      ])
    let planned = try #require(try await f.journal.device(run: planRun, address: Self.addresses[0].description))
    #expect(planned.state == .planned && planned.changeList.count == 3 && !(planned.changes ?? "").contains("4321"))

    let (apply, run) = try await f.run(dryRun: false)
    #expect(apply.count(.verified) == 1 && apply.count(.compliant) == 1)
    #expect(await first.sets == ["AT+NAME=dock-0", "AT+INTERVAL=500", "AT+PIN=4321"])
    // Each set is followed by nothing but the verifying queries.
    #expect(
      await Array(first.commands.suffix(6)) == [
        "AT+NAME=dock-0", "AT+INTERVAL=500", "AT+PIN=4321", "AT+NAME?", "AT+INTERVAL?", "AT+PIN?",
      ])
    #expect(await second.sets.isEmpty)
    let row = try #require(try await f.journal.device(run: run, address: Self.addresses[0].description))
    #expect(row.state == .verified && row.writes == 3 && !(row.changes ?? "").contains("4321"))

    let (again, _) = try await f.run(dryRun: false)
    #expect(again.count(.compliant) == 2 && !again.changedSomething)
    #expect(await first.sets.count == 3, "a second apply sent a set")
  }

  /// On a shared journal a `writing` record proves the lease still has a third of its time (`LeaseFence`):
  /// every set has one just before it, not only the first, so a gateway paused between two sets past its
  /// lease sends no more (the record is refused).
  @Test func everySetIsPrecededByAWritingRecord() async throws {
    let f = try Fixture()
    let device = f.devices[Self.addresses[0]]!
    let journal = VisitJournalRecordsTests.RecordingJournal(f.journal, writes: { await device.sets.count })
    let (summary, _) = try await f.run(dryRun: false, through: journal)
    #expect(summary.count(.verified) == 1)
    let records = journal.updates.withLock { $0 }.filter { $0.update.address == Self.addresses[0].description }
    #expect(records.filter { $0.update.step == VisitStep.writing.rawValue }.map(\.writesBefore) == [0, 1, 2])
    #expect(records.filter { $0.update.step == "written" }.map(\.writesBefore) == [1, 2, 3])
  }

  @Test func aSetThatDoesNotHoldFailsTheDeviceNamingBothAnswers() async throws {
    let f = try Fixture()
    await f.devices[Self.addresses[0]]!.configure(ignoreSets: true)
    let (summary, _) = try await f.run(dryRun: false)
    guard case .failed(let reason, .permanent)? = summary.outcomes[Self.addresses[0].description] else {
      Issue.record(
        "expected a permanent failure, got \(String(describing: summary.outcomes[Self.addresses[0].description]))")
      return
    }
    #expect(
      reason.contains(
        #"command 0 AT+NAME? answered "+NAME:old | OK", expected "+NAME:dock-0" (AT+NAME=dock-0 answered "OK")"#))
    #expect(reason.contains(#"expected "/\+INTERVAL:50[0-9]/""#))
    #expect(!reason.contains("4321") && !reason.contains("0000"))
  }

  /// The link drops right after the first set lands: the next attempt finds that item compliant and the
  /// others still to set, and sends only those; the run reports the device updated with all three changes,
  /// and the journal keeps the first one with the value it replaced (the retry's `writing` record replaced
  /// the changes with the two still to set).
  @Test func aSetThatLandedBeforeTheLinkDroppedIsNotSentAgain() async throws {
    let f = try Fixture()
    let device = f.devices[Self.addresses[0]]!
    await device.configure(dropAfterSets: 1)
    let (summary, run) = try await f.run(dryRun: false)
    guard case .updated(let changes)? = summary.outcomes[Self.addresses[0].description] else {
      Issue.record("expected updated, got \(String(describing: summary.outcomes[Self.addresses[0].description]))")
      return
    }
    #expect(changes.map(\.key) == ["AT+NAME?", "AT+INTERVAL?", "AT+PIN?"])
    #expect(await device.sets == ["AT+NAME=dock-0", "AT+INTERVAL=500", "AT+PIN=4321"])
    let row = try #require(try await f.journal.device(run: run, address: Self.addresses[0].description))
    #expect(row.attempts == 2 && row.state == .verified)
    let name = try #require(row.changeList.first { $0.key == "AT+NAME?" })
    #expect(name.old?.contains("+NAME:old") == true && !(row.changes ?? "").contains("4321"))
  }
}
