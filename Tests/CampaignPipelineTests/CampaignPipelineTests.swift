import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import KBeacon
import Profiles
import Simulator
import Testing

/// `CampaignPipeline` run directly, without the command line, on the simulator's in-process adapter: `apply`
/// and `dfu update` through the one scheduler, `--resume`, and the events the command line renders — the
/// same for both kinds of campaign, so their logs cannot drift apart again.
@Suite(.timeLimit(.minutes(3))) struct CampaignPipelineTests {
  @Test func applyWritesTheProfileAndAPlanAfterItFindsNothingToChange() async throws {
    let fixture = try PipelineFixture(count: 3)
    let addresses = (0..<3).map(PipelineFixture.address)
    let applied = try await fixture.pipeline().run(try PipelineFixture.applyPlan(addresses: addresses, name: "aisle"))
    #expect(applied.summary.outcomes.count == 3)
    #expect(applied.summary.outcomes.values.allSatisfy { $0.state == .verified }, "\(applied.summary.outcomes)")
    #expect(try await fixture.journal.run(applied.summary.run)?.kind == "apply")

    let planned = try await fixture.pipeline().run(
      try PipelineFixture.applyPlan(addresses: addresses, name: "aisle", dryRun: true))
    #expect(planned.summary.outcomes.values.allSatisfy { $0.state == .compliant }, "\(planned.summary.outcomes)")
    #expect(try await fixture.journal.run(planned.summary.run)?.kind == "plan")
  }

  @Test func dfuUpdatesEachDeviceAndReportsIt() async throws {
    let fixture = try PipelineFixture(count: 2)
    let addresses = (0..<2).map(PipelineFixture.address)
    let (plan, package) = try PipelineFixture.firmwarePlan(addresses: addresses)
    defer { try? FileManager.default.removeItem(atPath: package) }
    let outcome = try await fixture.pipeline().run(plan)
    #expect(outcome.version?.description == "5.30")
    #expect(outcome.summary.outcomes.values.allSatisfy { $0.state == .verified }, "\(outcome.summary.outcomes)")
    for address in addresses {
      #expect(outcome.reports[address]?.from?.description == "5.22")
      #expect(outcome.reports[address]?.bytes == 4_000)
    }
    #expect(Set(fixture.central.bootloaders.entered) == Set(addresses.compactMap { BluetoothAddress($0) }))
  }

  /// `apply` and `dfu update` go through the same steps and report through the same events (the command
  /// line renders and logs them in one place, `CampaignConsole`): scan, selection, the run's start, each
  /// device's end. Fails if either kind gets a path of its own again.
  @Test func applyAndDFUReportTheSameEvents() async throws {
    let addresses = (0..<2).map(PipelineFixture.address)
    let apply = try PipelineFixture(count: 2)
    _ = try await apply.pipeline().run(try PipelineFixture.applyPlan(addresses: addresses, name: "aisle"))
    let dfu = try PipelineFixture(count: 2)
    let (plan, package) = try PipelineFixture.firmwarePlan(addresses: addresses)
    defer { try? FileManager.default.removeItem(atPath: package) }
    _ = try await dfu.pipeline().run(plan)

    let expected = ["scanning", "selected", "started", "campaign.finished", "campaign.finished"]
    #expect(apply.events.shape == expected)
    // A package campaign first says which package and version it installs.
    #expect(dfu.events.shape == ["package"] + expected)
    for log in [apply.events, dfu.events] {
      let finished = log.all.compactMap { event -> String? in
        guard case .campaign(.finished(let address, _), let total) = event, total == 2 else { return nil }
        return address
      }
      #expect(Set(finished) == Set(addresses))
      #expect(log.all.contains { if case .campaign(.step, _) = $0 { true } else { false } })
    }
  }

  @Test func aResumedApplyVisitsOnlyItsUnfinishedDevices() async throws {
    let fixture = try PipelineFixture(count: 3)
    let addresses = (0..<3).map(PipelineFixture.address)
    var first = fixture.pipeline(parallel: 1)
    // Stop once the first device is done: the other two stay pending.
    first.stopWhen = { if case .finished = $0 { true } else { false } }
    let stopped = try await first.run(try PipelineFixture.applyPlan(addresses: addresses, name: "aisle"))
    #expect(stopped.summary.interrupted)
    #expect(
      stopped.summary.count(.verified) == 1 && stopped.summary.count(.pending) == 2, "\(stopped.summary.outcomes)")

    let resumed = try await fixture.pipeline(resume: "last").run(
      try PipelineFixture.applyPlan(addresses: addresses, name: "aisle"))
    #expect(resumed.summary.run == stopped.summary.run)
    #expect(resumed.summary.outcomes.count == 2 && resumed.summary.outcomes.values.allSatisfy { $0.state == .verified })
    #expect(fixture.events.all.contains { if case .resuming(_, 2, 2) = $0 { true } else { false } })
  }

  /// `Settings.resumeKeeps` (`reconcile` finishing a device left in its bootloader): the resume visits only the
  /// devices it names, and the run's other unfinished devices stay as they were.
  @Test func aResumeKeptToSomeDevicesLeavesTheOthersUnfinished() async throws {
    let fixture = try PipelineFixture(count: 3)
    let addresses = (0..<3).map(PipelineFixture.address)
    var first = fixture.pipeline(parallel: 1)
    first.stopWhen = { if case .finished = $0 { true } else { false } }
    let plan = try PipelineFixture.applyPlan(addresses: addresses, name: "aisle")
    let stopped = try await first.run(plan)
    let pending = stopped.summary.outcomes.filter { $0.value.state == .pending }.keys.sorted()
    #expect(pending.count == 2, "\(stopped.summary.outcomes)")

    var kept = fixture.pipeline(resume: stopped.summary.run)
    kept.settings.resumeKeeps = [pending[1]]
    let resumed = try await kept.run(plan)
    #expect(resumed.summary.outcomes.keys.sorted() == [pending[1]], "\(resumed.summary.outcomes)")
    #expect(resumed.summary.outcomes[pending[1]]?.state == .verified)
    #expect(fixture.events.all.contains { if case .resuming(_, 1, 1) = $0 { true } else { false } })
    let rows = try await fixture.journal.devices(run: stopped.summary.run)
    #expect(rows.first { $0.address == pending[0] }?.state == .pending)
  }

  /// The run's devices were chosen when it began. A device this run renamed, cut short after the write and
  /// before its end was journalled (kill -9), no longer matches the profile's name glob when the resume's
  /// scan hears it — it is still the run's, and the resume finishes it rather than calling it not seen.
  @Test func aResumeFinishesADeviceTheRunRenamedPastTheProfilesNameGlob() async throws {
    let fixture = try PipelineFixture(count: 3)
    let text = #"{"version": 1, "select": {"name": "KBPro_P*"}, "desired": {"name": "aisle"}}"#
    let loaded = try LoadedProfile.load(file: "glob.json", read: { _ in Array(text.utf8) }, urlCheck: { _ in nil })
    let plan = try ProfileCampaignPlan(
      profile: loaded, path: "glob.json", recipe: RunRecipe("profile", content: Array(text.utf8)),
      passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }),
      dryRun: false)
    var first = fixture.pipeline(parallel: 1)
    first.stopWhen = { if case .finished = $0 { true } else { false } }
    let stopped = try await first.run(plan)
    let renamed = try #require(stopped.summary.outcomes.first { $0.value.state == .verified }?.key)
    // As if killed after the write landed, before the device's end was journalled.
    try await fixture.journal.record(run: stopped.summary.run, address: renamed, state: .working, step: "written")

    let resumed = try await fixture.pipeline(resume: "last").run(plan)
    #expect(resumed.summary.outcomes.count == 3 && resumed.notSeen.isEmpty, "\(resumed.summary.outcomes)")
    #expect(resumed.summary.outcomes[renamed]?.state == .verified)
    #expect(fixture.events.all.contains { if case .resuming(_, 3, 3) = $0 { true } else { false } })
  }

  /// `audit --connect`'s reads: a device goes to the first profile that selects it, and the next profile's
  /// plan does not visit it again.
  @Test func eachDeviceIsReadByTheFirstPlanThatSelectsIt() async throws {
    let fixture = try PipelineFixture(count: 3)
    let (a, b, c) = (PipelineFixture.address(0), PipelineFixture.address(1), PipelineFixture.address(2))
    let first = try PipelineFixture.applyPlan(addresses: [a, b], name: "first", dryRun: true)
    let second = try PipelineFixture.applyPlan(addresses: [b, c], name: "second", dryRun: true)
    var pipeline = fixture.pipeline()
    pipeline.records = try await PipelineFixture.scan(fixture.central, 3, [])
    let outcomes = try await pipeline.firstOutcomes(of: [first, second], records: pipeline.records ?? [])
    #expect(Set(outcomes.keys) == [a, b, c])
    let visits = fixture.events.all.compactMap { event -> String? in
      guard case .campaign(.finished(let address, _), _) = event else { return nil }
      return address
    }
    #expect(visits.sorted() == [a, b, c], "b is visited once, by the first plan")
    // The first profile's name is planned for b, not the second's.
    guard case .planned(let changes)? = outcomes[b] else {
      Issue.record("\(String(describing: outcomes[b]))")
      return
    }
    #expect(changes.contains { $0.new.description.contains("first") }, "\(changes)")
  }

  @Test func aResumeOfAnotherKindOrProfileIsRefused() async throws {
    let fixture = try PipelineFixture(count: 1)
    let addresses = [PipelineFixture.address(0)]
    let applied = try await fixture.pipeline().run(try PipelineFixture.applyPlan(addresses: addresses, name: "aisle"))
    let (plan, package) = try PipelineFixture.firmwarePlan(addresses: addresses)
    defer { try? FileManager.default.removeItem(atPath: package) }
    await #expect { try await fixture.pipeline(resume: applied.summary.run).run(plan) } throws: {
      "\($0)" == "run \(applied.summary.run) is a apply run, not a dfu run"
    }
    await #expect(throws: CampaignFailure.self) {
      try await fixture.pipeline(resume: applied.summary.run).run(
        try PipelineFixture.applyPlan(addresses: addresses, name: "other"))
    }
  }
}
