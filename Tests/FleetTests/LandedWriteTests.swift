import BeaconCore
import Foundation
import Profiles
import Testing

@testable import Fleet

/// A `cfg` the device applied whose acknowledgement the link lost (the fault matrix's "link drop right
/// after the cfg write"): the retry reads the device back compliant, and the run must still say it wrote
/// it — `updated` with the changes, one write journalled — not `compliant, nothing written`.
@Suite("landed writes", .timeLimit(.minutes(1))) struct LandedWriteTests {
  /// Device 0 loses the ack of its first write; device 1 (no fault) is the reference.
  @Test func aWriteWhoseAckWasLostIsReportedAsTheUpdateItWas() async throws {
    let f = try ApplyCampaignTests.Fixture(count: 2)
    let (faulty, reference) = (f.targets[0].address, f.targets[1].address)
    await f.devices[faulty]!.setDropAfterWrites(1)
    let run = try await f.newRun()
    let summary = try await f.campaign(run: run).start()
    #expect(await f.devices[faulty]!.writes.count == 1)  // written once, never twice
    guard case .updated(let changes)? = summary.outcomes[faulty.description],
      case .updated(let expected)? = summary.outcomes[reference.description]
    else {
      Issue.record("outcomes: \(summary.outcomes)")
      return
    }
    // The profile's changes for index 0 and 1: name KBPro -> shop-N, slot 0 minorID 1 -> 100+N.
    #expect(changes.map(\.description) == [#"device name: "KBPro" -> "shop-0""#, "slot 0 minorID: 1 -> 100"])
    #expect(expected.map(\.description) == [#"device name: "KBPro" -> "shop-1""#, "slot 0 minorID: 1 -> 101"])
    let row = try #require(try await f.journal.device(run: run, address: faulty.description))
    #expect(row.state == .verified && row.writes == 1 && row.attempts == 2)
  }

  /// Only the password to rotate differs; the write lands and its acknowledgement is lost. The retry gets in
  /// with the new password (so plans no `pwd` change) and finds the rest compliant: the run still says it
  /// rotated the password — updated, one write — not "compliant, nothing written".
  @Test func aPasswordRotationWhoseAckWasLostIsReportedAsTheUpdateItWas() async throws {
    let f = try ApplyCampaignTests.Fixture(count: 1, compliant: [0])
    let device = try #require(f.devices[f.targets[0].address])
    await device.setDropAfterWrites(1)
    let run = try await f.newRun()
    let passwords = ApplyCampaign.Passwords(current: Secret("0000000000000000"), new: Secret("n3w-Secret-pw"))
    let summary = try await f.campaign(run: run, passwords: passwords).start()
    #expect(await device.writes.count == 1)
    #expect(await device.password == "n3w-Secret-pw")
    #expect(
      summary.outcomes[f.targets[0].address.description]
        == .updated([ConfigChange(scope: .common, key: "pwd", old: nil, new: .text("••••••••"))]))
    let row = try #require(try await f.journal.device(run: run, address: f.targets[0].address.description))
    #expect(row.state == .verified && row.writes == 1)
  }

  @Test func aDeviceAlreadyCompliantBeforeTheRunIsStillCompliant() async throws {
    let f = try ApplyCampaignTests.Fixture(count: 1, compliant: [0])
    let run = try await f.newRun()
    let summary = try await f.campaign(run: run).start()
    #expect(summary.outcomes[f.targets[0].address.description] == .compliant)
    #expect(try await f.journal.device(run: run, address: f.targets[0].address.description)?.writes == 0)
  }

  @Test func journalledValuesReadBackAsTheirKinds() {
    #expect(LandedWrite.value(#""shop-1""#) == .text("shop-1"))
    #expect(LandedWrite.value("-59") == .integer(-59))
    #expect(LandedWrite.value("1022.5") == .number(1022.5))
  }
}

extension FakeDevice {
  func setDropAfterWrites(_ n: Int) { dropAfterWrites = n }
}
