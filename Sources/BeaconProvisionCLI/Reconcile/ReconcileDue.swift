import Audit
import BeaconCore
import CampaignPipeline
import Profiles

/// One pass's choice of devices: the devices of a scan window each profile selects (a device
/// belongs to the first profile that selects it), their drift on the air (`AirDrift`, as `audit` judges it),
/// and which of them are due (`ReconcileLedger.decision`).
struct ReconcileDue {
  struct Candidate: Sendable {
    var record: DeviceRecord
    var address: String { record.address.description }
    var decision: ReconcileLedger.Decision
    var drift: [String]
    var battery: Int?
  }

  /// Per profile (in the order given), its selected devices not claimed by an earlier profile.
  static func candidates(
    profiles: [ReconcileProfile], records: [DeviceRecord], ledger: ReconcileLedger, now: Double, recheck: Double
  ) -> [[Candidate]] {
    var claimed: Set<String> = []
    let byAddress = Dictionary(records.map { ($0.address.description, $0) }, uniquingKeysWith: { a, _ in a })
    let air = AirDrift()
    return profiles.map { profile in
      let selection = TargetSelection(profile: profile.loaded, records: records)
      var list: [Candidate] = []
      for target in selection.targets {
        let address = target.address.description
        guard !claimed.contains(address), let record = byAddress[address] else { continue }
        claimed.insert(address)
        var drift: [String] = []
        if case .success(let view) = profile.plan.resolver.resolve(
          profile.loaded.profile.desired, profile.loaded.variables(for: address))
        {
          drift = air.drift(desired: view, heard: record).map { "\($0.scope) \($0.key)" }
        }
        let decision = ledger.decision(
          address, fingerprint: profile.fingerprint, drift: drift, now: now, recheck: recheck)
        list.append(
          Candidate(record: record, decision: decision, drift: drift, battery: DFUTargetSelection.battery(record)))
      }
      return list
    }
  }
}

/// `--max-connections-per-hour`: the connections of the last hour, and how many more may start now.
struct ConnectionBudget: Sendable {
  var perHour: Int?
  var started: [Double] = []

  mutating func available(now: Double) -> Int {
    started.removeAll { $0 <= now - 3600 }
    guard let perHour else { return .max }
    return max(0, perHour - started.count)
  }

  mutating func spend(_ count: Int, now: Double) { started += Array(repeating: now, count: count) }

  /// Gives back `count` of the connections spent at `at` that never started (a maintenance window closed first).
  mutating func refund(_ count: Int, spentAt at: Double) {
    for _ in 0..<count {
      guard let index = started.lastIndex(of: at) else { return }
      started.remove(at: index)
    }
  }
}
