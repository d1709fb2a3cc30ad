import BeaconCore
import CampaignPipeline
import Fleet
import Testing

@testable import BeaconProvisionCLI

/// `dfu update --resume RUN` visits the run's unfinished devices: those the new scan hears as heard, the
/// others (silent in their bootloader) by address with the type the run journalled — not always random,
/// which made a public-address device unreachable (its application never answers a random-type connect).
@Suite("dfu resume targets", .timeLimit(.minutes(1))) struct DFUResumeTargetsTests {
  @Test func unheardDevicesGetTheirJournalledTypeAndUntypedOnesRandom() async throws {
    let journal = try Journal(path: nil)
    let (heardPublic, silentPublic, silentRandom, silentOld, done) = (
      "DD:34:02:06:D1:01", "DD:34:02:06:D1:02", "DD:34:02:06:D1:03", "DD:34:02:06:D1:04", "DD:34:02:06:D1:05"
    )
    let run = try await journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "sim",
      addresses: [heardPublic, silentPublic, silentRandom, silentOld, done],
      addressTypes: [heardPublic: .public, silentPublic: .public, silentRandom: .random, done: .public])
    try await journal.record(run: run, address: done, state: .verified)
    let unfinished = try await journal.devices(run: run).filter { !$0.state.isFinal }
    let heard = [
      Target(address: BluetoothAddress(heardPublic)!, addressType: .public, name: "KBPro_1"),
      Target(address: BluetoothAddress("DD:34:02:06:D1:09")!, addressType: .public),
    ]  // not in the run
    let targets = CampaignPipeline.resumeTargets(unfinished: unfinished, heard: heard)
    #expect(targets.map(\.address.description) == [heardPublic, silentPublic, silentRandom, silentOld])
    #expect(targets.map(\.addressType) == [.public, .public, .random, .random])
    #expect(targets.first?.name == "KBPro_1")  // a heard device keeps what the scan said
  }
}
