import BeaconCore
import Foundation
import Profiles
import Testing

@testable import Fleet

@Suite(.timeLimit(.minutes(3))) struct ApplyCampaignTests {
  static let profileText = #"""
    {"version": 1, "select": {"addresses": ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02", "DD:34:02:06:D1:03", "DD:34:02:06:D1:04"]},
     "desired": {"name": "shop-{{index}}", "slots": [{"slot": 0, "type": "ibeacon", "major": 7, "minor": "{{index+100}}"}]}}
    """#

  static func loaded(_ text: String = profileText) throws -> LoadedProfile {
    try LoadedProfile.load(file: "p.json", read: { _ in Array(text.utf8) }, urlCheck: { _ in nil })
  }

  static func device(name: String = "KBPro", minor: Int = 1) -> FakeDevice {
    FakeDevice(
      config: DeviceConfigView(
        common: ["name": .text(name), "model": .text("KBPro"), "ver": .text("V5.22"), "maxSlot": .integer(5)],
        slots: [0: ["slot": .integer(0), "type": .integer(5), "majorID": .integer(7), "minorID": .integer(minor)]]))
  }

  struct Fixture {
    var devices: [BluetoothAddress: FakeDevice] = [:]
    var targets: [Target] = []
    let journal: Journal

    init(count: Int = 4, compliant: Set<Int> = []) throws {
      journal = try Journal(path: nil)
      for i in 0..<count {
        let address = BluetoothAddress("DD:34:02:06:D1:0\(i + 1)")!
        devices[address] =
          compliant.contains(i)
          ? ApplyCampaignTests.device(name: "shop-\(i)", minor: 100 + i) : ApplyCampaignTests.device()
        targets.append(Target(address: address))
      }
    }

    func campaign(
      run: String, dryRun: Bool = false, parallel: Int = 2,
      passwords: ApplyCampaign.Passwords = .init(current: Secret("0000000000000000")),
      targets: [Target]? = nil
    ) throws -> ApplyCampaign {
      ApplyCampaign(
        profile: try ApplyCampaignTests.loaded(), targets: targets ?? self.targets,
        opener: FakeOpener(devices: devices), journal: journal,
        run: run,
        options: .init(parallel: parallel, retry: RetryPolicy(maximumAttempts: 3, firstDelay: .zero), dryRun: dryRun),
        passwords: passwords, resolver: DesiredResolver(urlCheck: { _ in nil }), sleep: { _ in })
    }

    func newRun() async throws -> String {
      try await journal.createRun(
        kind: "apply", source: "p.json", adapter: "test", addresses: targets.map(\.address.description))
    }
  }

  @Test func compliantDevicesSeeNoWriteAndTheRestConvergeWithOnlyChangedKeys() async throws {
    let f = try Fixture(compliant: [1])
    let run = try await f.newRun()
    let summary = try await f.campaign(run: run).start()
    #expect(summary.count(.verified) == 3 && summary.count(.compliant) == 1)
    let compliant = try #require(f.devices[BluetoothAddress("DD:34:02:06:D1:02")!])
    #expect(await compliant.writes.isEmpty)
    let changed = try #require(f.devices[BluetoothAddress("DD:34:02:06:D1:03")!])
    // One cfg message with exactly the differing keys: name, and slot 0's minorID (+ slot and type).
    #expect(
      await changed.writes == [
        DeviceConfigView(
          common: ["name": .text("shop-2")],
          slots: [0: ["slot": .integer(0), "type": .integer(5), "minorID": .integer(102)]])
      ])
    // A second run finds everything compliant and writes nothing.
    let again = try await f.campaign(run: try await f.newRun()).start()
    #expect(again.count(.compliant) == 4 && !again.changedSomething)
    #expect(await changed.writes.count == 1)
  }

  @Test func planWritesNothingAndJournalsThePlannedChanges() async throws {
    let f = try Fixture(count: 2)
    let run = try await f.newRun()
    let summary = try await f.campaign(run: run, dryRun: true).start()
    #expect(summary.count(.planned) == 2)
    for d in f.devices.values { #expect(await d.writes.isEmpty) }
    let rows = try await f.journal.devices(run: run)
    #expect(rows.map(\.state) == [.planned, .planned])
    #expect(
      rows[0].changeList == [
        JournalChange(scope: "device", key: "name", old: "\"KBPro\"", new: "\"shop-0\""),
        JournalChange(scope: "slot 0", key: "minorID", old: "1", new: "100"),
      ])
  }

  @Test func aDroppedLinkIsRetriedAndTheDeviceConverges() async throws {
    let f = try Fixture(count: 1)
    let d = try #require(f.devices.values.first)
    await d.setDrops(2)
    let run = try await f.newRun()
    let summary = try await f.campaign(run: run).start()
    #expect(summary.count(.verified) == 1)
    #expect(await d.writes.count == 1)
    #expect(await d.opens == 3)
    #expect(try await f.journal.devices(run: run).first?.attempts == 3)
  }

  @Test func retriesStopAtTheLimitWithTheReason() async throws {
    let f = try Fixture(count: 1)
    await f.devices.values.first!.setDrops(10)
    let summary = try await f.campaign(run: try await f.newRun()).start()
    #expect(summary.outcomes.values.first == .failed("disconnected: link dropped mid-write", .transient))
  }

  @Test func aWrongPasswordIsReportedAndNeverRetried() async throws {
    let f = try Fixture(count: 2)
    let locked = try #require(f.devices[BluetoothAddress("DD:34:02:06:D1:01")!])
    await locked.setPassword("somethingelse")
    let summary = try await f.campaign(run: try await f.newRun()).start()
    #expect(summary.outcomes["DD:34:02:06:D1:01"] == .failed("authentication failed: wrong password", .wrongPassword))
    #expect(await locked.opens == 1)
    #expect(
      summary.outcomes["DD:34:02:06:D1:02"]
        == .updated([
          ConfigChange(scope: .common, key: "name", old: .text("KBPro"), new: .text("shop-1")),
          ConfigChange(scope: .slot(0), key: "minorID", old: .integer(1), new: .integer(101)),
        ]))
  }

  @Test func aValueThatDoesNotReadBackFailsVerification() async throws {
    let f = try Fixture(count: 1)
    await f.devices.values.first!.setCorrupt("minorID")
    let summary = try await f.campaign(run: try await f.newRun()).start()
    #expect(
      summary.outcomes.values.first
        == .failed("read-back differs after writing: slot 0 minorID is -1, expected 100", .permanent))
  }

  @Test func stopLeavesTheRestPendingAndResumeFinishesWithoutWritingAnythingTwice() async throws {
    let f = try Fixture(count: 4)
    let run = try await f.newRun()
    let campaign = try f.campaign(run: run, parallel: 1)
    let watcher = Task {
      for await event in campaign.events {
        if case .finished = event {
          await campaign.requestStop()
          break
        }
      }
    }
    let first = await campaign.start()
    _ = await watcher.value
    // The stop lands after the first device finished; the next may already have started and finished.
    #expect(first.interrupted && first.count(.verified) >= 1 && first.count(.pending) >= 1)
    #expect(first.count(.verified) + first.count(.pending) == 4)
    #expect(try await f.journal.run(run)?.status == "interrupted")

    let remaining = try await f.journal.devices(run: run).filter { !$0.state.isFinal }.map(\.address)
    #expect(remaining.count == first.count(.pending))
    let resumed = try await f.campaign(
      run: run, targets: f.targets.filter { remaining.contains($0.address.description) }
    ).start()
    #expect(resumed.count(.verified) == remaining.count && !resumed.interrupted)
    for d in f.devices.values { #expect(await d.writes.count == 1) }
    #expect(try await f.journal.devices(run: run).allSatisfy { $0.state == .verified })
  }

  @Test func passwordRotationReconnectsWithTheNewPasswordAndNeverJournalsIt() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
    let path = dir.appendingPathComponent("journal.sqlite").path
    var f = try Fixture(count: 2, compliant: [0, 1])
    f = Fixture(devices: f.devices, targets: f.targets, journal: try Journal(path: path))
    let passwords = ApplyCampaign.Passwords(current: Secret("0000000000000000"), new: Secret("n3w-Secret-pw"))
    let summary = try await f.campaign(run: try await f.newRun(), passwords: passwords).start()
    #expect(summary.count(.verified) == 2)
    for d in f.devices.values {
      #expect(await d.password == "n3w-Secret-pw")
      #expect(await d.opens == 2)
    }
    if case .updated(let changes)? = summary.outcomes.values.first {
      #expect(changes == [ConfigChange(scope: .common, key: "pwd", old: nil, new: .text("••••••••"))])
    }
    // A second run with the same profile finds the devices already rotated.
    let again = try await f.campaign(run: try await f.newRun(), passwords: passwords).start()
    #expect(again.count(.compliant) == 2)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(bytes.range(of: Data("n3w-Secret-pw".utf8)) == nil)
    #expect(bytes.range(of: Data("0000000000000000".utf8)) == nil)
    try? FileManager.default.removeItem(at: dir)
  }

  @Test func deviceLimitsFailOnlyThatDevice() async throws {
    let f = try Fixture(count: 2)
    await f.devices[BluetoothAddress("DD:34:02:06:D1:01")!]!.setMaxSlot(0)
    let summary = try await f.campaign(run: try await f.newRun()).start()
    #expect(
      summary.outcomes["DD:34:02:06:D1:01"]
        == .failed("slot 0 does not exist: this device has 0 slots (none)", .permanent))
    #expect(summary.count(.verified) == 1)
  }
}

extension FakeDevice {
  func setDrops(_ n: Int) { dropWrites = n }
  func setPassword(_ p: String) { password = p }
  func setCorrupt(_ key: String) { corruptAfterWrite = key }
  func setMaxSlot(_ n: Int) { config.common["maxSlot"] = .integer(n) }
}

extension ApplyCampaignTests.Fixture {
  init(devices: [BluetoothAddress: FakeDevice], targets: [Target], journal: Journal) {
    self.devices = devices
    self.targets = targets
    self.journal = journal
  }
}
