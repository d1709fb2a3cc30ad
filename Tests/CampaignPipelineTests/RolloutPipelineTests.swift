import CampaignPipeline
import Fleet
import Foundation
import Testing

/// `CampaignPipeline` with `Settings.rollout` (`RolloutWaves`): the waves go through the one scheduler in
/// address order, one after another, and a rollout is refused for anything but a firmware campaign.
@Suite(.timeLimit(.minutes(2))) struct RolloutPipelineTests {
  /// Five devices, canary 1 then 50% and 100% of the other four: {0}, {1, 2}, {3, 4}; each wave's devices
  /// finish between its start and its end event, and a wave starts only after the one before finished.
  @Test func wavesRunInAddressOrderOneAfterAnother() async throws {
    let fixture = try PipelineFixture(count: 5)
    var pipeline = fixture.pipeline()
    pipeline.settings.rollout = RolloutPlan(canary: 1, waves: [50, 100])
    let addresses = (0..<5).map(PipelineFixture.address)
    let (plan, path) = try PipelineFixture.firmwarePlan(addresses: addresses.reversed())
    defer { try? FileManager.default.removeItem(atPath: path) }

    let outcome = try await pipeline.run(plan)
    #expect(outcome.summary.count(.verified) == 5)
    #expect(outcome.rollout?.waves.map(\.devices) == [1, 2, 2])
    #expect(outcome.rollout?.stopped == false)
    var waves: [[String]] = []
    var open = false
    for event in fixture.events.all {
      switch event {
      case .waveStarting:
        #expect(!open)
        (waves, open) = (waves + [[]], true)
      case .waveFinished(_, _, let failures, _, let stops):
        #expect(failures == 0 && !stops)
        open = false
      case .campaign(.finished(let address, _), _):
        #expect(open, "\(address) finished outside a wave")
        waves[waves.count - 1].append(address)
      default: break
      }
    }
    #expect(
      waves.map { $0.sorted() } == [[addresses[0]], [addresses[1], addresses[2]], [addresses[3], addresses[4]]])
  }

  @Test func aRolloutIsForFirmwareCampaignsOnly() async throws {
    let fixture = try PipelineFixture(count: 1)
    var pipeline = fixture.pipeline()
    pipeline.settings.rollout = RolloutPlan(canary: 1, waves: [100])
    let plan = try PipelineFixture.applyPlan(addresses: [PipelineFixture.address(0)], name: "x")
    let error = await #expect(throws: CampaignFailure.self) { try await pipeline.run(plan) }
    #expect(error?.message == "--rollout is for firmware campaigns (dfu update)")
    #expect(try await fixture.journal.runs().isEmpty)
  }
}
