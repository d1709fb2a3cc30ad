import BeaconCore
import Fleet

extension CampaignPipeline {
  /// `audit --connect`: each plan run in turn on the records already heard (no second scan); a device
  /// belongs to the first plan that visits it, and the plans after it do not see it. Returns each visited
  /// device's outcome.
  public func firstOutcomes(of plans: [any CampaignPlan], records: [DeviceRecord]) async throws -> [String:
    DeviceOutcome]
  {
    var outcomes: [String: DeviceOutcome] = [:]
    for plan in plans {
      var pipeline = self
      pipeline.records = records.filter { outcomes[$0.address.description] == nil }
      let result = try await pipeline.run(plan)
      for (address, outcome) in result.summary.outcomes where outcomes[address] == nil { outcomes[address] = outcome }
    }
    return outcomes
  }
}
