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
