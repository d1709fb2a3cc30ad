import BeaconCore
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// `--parallel N` keeps N links: the campaign's links are not lowered by what is not the adapter's limit — a connect
/// refused while a link of ours is still being torn down, a device's own failure, a device pausing before a
/// retry — and a limit lowered by the adapter is raised again after successes, said once.
@Suite("Link teardown and the link limit", .timeLimit(.minutes(1))) struct LinkTeardownTests {
  struct Fleet {
    var devices: [BluetoothAddress: FakeDevice] = [:]
    var targets: [Target] = []
    let journal: Journal

    init(count: Int) throws {
      journal = try Journal(path: nil)
      for i in 0..<count {
        let address = BluetoothAddress(String(format: "DD:34:02:07:%02X:%02X", i >> 8, i & 0xFF))!
        devices[address] = ApplyCampaignTests.device()
        targets.append(Target(address: address))
      }
    }

    func device(_ i: Int) -> FakeDevice { devices[targets[i].address]! }

    /// Every device gets slot 0's minor changed.
    static let profile =
      #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": 7, "minor": 999}]}}"#

    func campaign(
      parallel: Int, slots: FakeLinkSlots, connected: (@Sendable () async -> Void)? = nil,
      retry: RetryPolicy = RetryPolicy(maximumAttempts: 3, firstDelay: .milliseconds(20)),
      sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> ApplyCampaign {
      let run = try await journal.createRun(
        kind: "apply", source: "p.json", adapter: "test", addresses: targets.map(\.address.description))
      return ApplyCampaign(
        profile: try ApplyCampaignTests.loaded(Self.profile), targets: targets,
        opener: FakeOpener(devices: devices, slots: slots, connected: connected), journal: journal,
        run: run, options: .init(parallel: parallel, retry: retry),
        passwords: .init(current: Secret("0000000000000000")),
        resolver: DesiredResolver(urlCheck: { _ in nil }), sleep: sleep)
    }
  }

  /// Every event of a campaign, gathered while it runs; `onEvent` sees each as it comes.
  static func gather(_ campaign: ApplyCampaign, onEvent: @escaping @Sendable (CampaignEvent) async -> Void = { _ in })
    -> Task<[CampaignEvent], Never>
  {
    gather(campaign.events, onEvent: onEvent)
  }

  static func gather(
    _ events: AsyncStream<CampaignEvent>, onEvent: @escaping @Sendable (CampaignEvent) async -> Void = { _ in }
  ) -> Task<[CampaignEvent], Never> {
    Task {
      var all: [CampaignEvent] = []
      for await event in events {
        all.append(event)
        await onEvent(event)
      }
      return all
    }
  }

  static func lowered(_ events: [CampaignEvent]) -> [Int] {
    events.compactMap { if case .linkLimit(let links, _) = $0 { links } else { nil } }
  }

  @Test func refusalsDuringTeardownAndDeviceFailuresDoNotLowerTheLimit() async throws {
    let f = try Fleet(count: 30)
    // A slot is free 200 ms after its link closed: the next device's connect, made at once, is refused (long
    // enough that a loaded sanitizer pass still connects inside it).
    let slots = FakeLinkSlots(limit: 4, teardown: .milliseconds(200))
    await f.device(3).setPassword("another-password")
    await f.device(7).setDrops(1)
    await f.device(11).setDrops(10)
    let campaign = try await f.campaign(parallel: 4, slots: slots)
    let events = Self.gather(campaign)
    let summary = await campaign.start()
    #expect(summary.count(.verified) == 28 && summary.count(.failed) == 2)
    #expect(await slots.refusals > 0, "connects were refused while links were torn down")
    #expect(Self.lowered(await events.value) == [])
    #expect(await slots.mostOpen == 4)
  }

  @Test func aDevicePausingBeforeARetryLeavesItsLinkToAnother() async throws {
    let f = try Fleet(count: 12)
    let slots = FakeLinkSlots(limit: 2)
    await f.device(0).setDrops(1)
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    // The retry pause of device 0 lasts until every other device has finished.
    let campaign = try await f.campaign(
      parallel: 2, slots: slots, retry: RetryPolicy(maximumAttempts: 2, firstDelay: .seconds(7)),
      sleep: { delay in
        guard delay == .seconds(7) else { return try await Task.sleep(for: delay) }
        await slots.resetMostOpen()
        for await _ in gate { break }
      })
    let finished = Mutex(0)
    let events = Self.gather(campaign) { event in
      guard case .finished = event else { return }
      if finished.withLock({
        $0 += 1
        return $0
      }) == 11 {
        open.yield()
      }
    }
    let summary = await campaign.start()
    _ = await events.value
    #expect(summary.count(.verified) == 12)
    #expect(await slots.mostOpen == 2, "two devices at once while device 0 paused")
  }

  @Test func aLimitLoweredByTheAdapterIsRaisedAgainAfterSuccessesAndSaidOnce() async throws {
    let f = try Fleet(count: 40)
    // Another program holds 2 of the adapter's 4 links, then gives them back after 8 devices. The first two
    // links stay open until the campaign has taken in both refusals: the adapter's limit, not a teardown.
    // Once the adapter holds 4 again and the campaign's limit is back to 4, each link is held until four are
    // open together (at most 5 s), so the count shows what the campaign allows rather than how often four
    // instant visits happen to overlap.
    let slots = FakeLinkSlots(limit: 2)
    let lowered = TestFlag()
    let raisedToFour = TestFlag()
    let campaign = try await f.campaign(parallel: 4, slots: slots) {
      await lowered.wait()
      if raisedToFour.isRaised { await slots.waitUntilOpen(4, atMost: .seconds(5)) }
    }
    let finished = Mutex(0)
    let events = Self.gather(campaign) { event in
      if case .linksInUse(_, limit: 2) = event { lowered.raise() }
      if lowered.isRaised, case .linksInUse(_, limit: 4) = event, await slots.limit == 4 { raisedToFour.raise() }
      guard case .finished = event else { return }
      if finished.withLock({
        $0 += 1
        return $0
      }) == 8 {
        await slots.setLimit(4)
        await slots.resetMostOpen()
      }
    }
    let summary = await campaign.start()
    let all = await events.value
    #expect(summary.count(.verified) == 40 && !summary.failed)
    #expect(Self.lowered(all) == [2])
    #expect(await slots.mostOpen == 4, "back to 4 links once the adapter holds them")
    let raised = all.compactMap { if case .linkLimitRaised(let links, let asked) = $0 { [links, asked] } else { nil } }
    #expect(raised == [[3, 4]], "the raise is said once")
  }

  /// Work whose attempt opens a link, closes it and opens a second, as a firmware update reads the version
  /// back after the transfer, or `apply` proves a new password: each device's first second connect is
  /// refused (`refusalsEach`), as when its first link's slot is still being freed (once) or the adapter holds
  /// no more links (always).
  struct TwoLinkWork: CampaignWork {
    actor Refusals {
      var refused: [String: Int] = [:]
      /// True the first `times` times for each device.
      func refuse(_ address: String, times: Int) -> Bool {
        refused[address, default: 0] += 1
        return refused[address]! <= times
      }
    }
    let refusals = Refusals()
    /// Refusals of the second connect for a device (1 for a device not named).
    var refusalsEach: [String: Int] = [:]
    /// How long each link is held.
    var linkTime = Duration.milliseconds(20)

    func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome {
      let address = target.address.description
      try await context.step(address, .connecting, attempt: attempt)
      try await Task.sleep(for: linkTime)
      try await context.step(address, .transferring, attempt: attempt)
      if await refusals.refuse(address, times: refusalsEach[address] ?? 1) {
        throw LinkError(.tooManyLinks, peer: target.address, detail: "its own first link is still being torn down")
      }
      try await Task.sleep(for: linkTime)
      return .updated([])
    }
  }

  /// A firmware-kind campaign of `work` over `f`'s devices at `--parallel 4`, one attempt each.
  static func campaign(
    of work: TwoLinkWork, over f: Fleet,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) async throws -> Campaign {
    let run = try await f.journal.createRun(
      kind: "dfu", source: "app.zip", adapter: "test", addresses: f.targets.map(\.address.description))
    return Campaign(
      work: work, targets: f.targets, journal: f.journal, run: run,
      options: .init(parallel: 4, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero)), sleep: sleep)
  }

  /// With every link busy and with links to spare (two devices at `--parallel 4`: counting the attempt's own
  /// link as an end is not enough there).
  @Test(arguments: [12, 2]) func aLinkRefusedRightAfterTheAttemptsOwnLinkIsATeardown(devices: Int) async throws {
    let f = try Fleet(count: devices)
    let work = TwoLinkWork()
    let campaign = try await Self.campaign(of: work, over: f)
    let events = Self.gather(campaign.events)
    let summary = await campaign.start()
    let all = await events.value
    #expect(summary.count(.verified) == devices && !summary.failed, "a refusal costs no attempt")
    #expect(await work.refusals.refused.count == devices)
    #expect(Self.lowered(all) == [], "the adapter's limit was never met: each refusal came after the device's own link")
  }

  /// Refusals after the device's own link that go on past the teardown grace are the adapter's limit after all,
  /// not a teardown paused for forever: one device alone is refused 22 times — 21 short pauses for a teardown
  /// (2 ms doubling to 128 ms, 2 s in all), then the limit: lowered to its own link, said, and a wait for a
  /// link held by no attempt of ours (`idleLinkWait`) — and then connects.
  @Test func refusalsAfterTheAttemptsOwnLinkThatGoOnAreTheLimit() async throws {
    let f = try Fleet(count: 1)
    let address = f.targets[0].address.description
    let work = TwoLinkWork(refusalsEach: [address: 22], linkTime: .milliseconds(1))
    // Pauses take no time (they are counted as asked for, as the teardown grace is), and are recorded.
    let pauses = Mutex<[Duration]>([])
    let campaign = try await Self.campaign(of: work, over: f) { delay in pauses.withLock { $0.append(delay) } }
    let events = Self.gather(campaign.events)
    let summary = await campaign.start()
    let all = await events.value
    #expect(summary.count(.verified) == 1, "\(summary.outcomes)")
    let asked = pauses.withLock { $0 }
    #expect(asked.filter { $0 <= Campaign.lastTeardownPause }.count == 21, "\(asked)")
    #expect(asked.filter { $0 == Campaign.idleLinkWait }.count == 1, "\(asked)")
    #expect(Self.lowered(all) == [1])
  }
}
