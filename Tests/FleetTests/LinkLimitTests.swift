import BeaconCore
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// An adapter that holds fewer links than `--parallel` asks for (docs/protocols/linux-ble.md §4 item 6: 3–7): devices
/// wait for a free link instead of failing, and the campaign lowers its parallelism and says so.
@Suite("Link limit", .timeLimit(.minutes(1))) struct LinkLimitTests {
  @Test func aLinkLimitBelowTheParallelismMakesDevicesWaitNotFail() async throws {
    let f = try ApplyCampaignTests.Fixture(count: 4)
    let slots = FakeLinkSlots(limit: 2)
    // The first two links stay open until the campaign has taken in both refusals: they come before any
    // link of ours ended, so they are the adapter's limit, not a teardown.
    let lowered = TestFlag()
    let pauses = Mutex(0)
    let campaign = ApplyCampaign(
      profile: try ApplyCampaignTests.loaded(), targets: f.targets,
      opener: FakeOpener(devices: f.devices, slots: slots, connected: { await lowered.wait() }),
      journal: f.journal, run: try await f.newRun(),
      options: .init(parallel: 4, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero)),
      passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }),
      sleep: { delay in if delay >= Campaign.idleLinkWait { pauses.withLock { $0 += 1 } } })
    let events = Task {
      var all: [CampaignEvent] = []
      for await event in campaign.events {
        all.append(event)
        if case .linksInUse(_, limit: 2) = event { lowered.raise() }
      }
      return all
    }
    let summary = await campaign.start()
    // One attempt allowed per device: a refused link that counted as one would fail the device.
    #expect(summary.count(.verified) == 4 && !summary.failed)
    #expect(await slots.refusals > 0)
    #expect(await slots.mostOpen == 2)
    let limits = await events.value.compactMap { event -> Int? in
      if case .linkLimit(let links, let asked) = event, asked == 4 { return links } else { return nil }
    }
    #expect(limits == [2])
    // While links of this campaign were open, refused devices waited for one to close: no idle-adapter pauses.
    #expect(pauses.withLock { $0 } == 0)
  }
}
