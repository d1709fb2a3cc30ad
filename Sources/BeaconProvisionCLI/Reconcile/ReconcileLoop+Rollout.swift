import CampaignPipeline
import Fleet

/// `--rollout` in a firmware pass (`ReconcileRollout`): the due devices the stage under way admits go on to
/// the campaign, the others wait (skipped-rollout, once per device and reason); after the campaign each
/// member's outcome is recorded and a stage that ended is reported (rollout-stage), or the rollout stops over
/// the threshold (rollout-stopped) and no later device is connected to for this source.
extension ReconcileLoop {
  /// The devices the profile manages (the rollout's population): the addresses its inventory or `select`
  /// names, or its converged devices this gateway knows, whichever is more.
  static func rolloutPopulation(_ profile: ReconcileProfile, _ ledger: ReconcileLedger) -> Int {
    let converged = ledger.devices.values.filter { $0.fingerprint == profile.fingerprint && $0.verifiedAt != nil }
    return max(TargetSelection.namedAddresses(of: profile.loaded)?.count ?? 0, converged.count)
  }

  /// Where the ledger keeps a profile's rollout of a firmware source.
  static func rolloutKey(_ profile: ReconcileProfile, _ firmware: ReconcileFirmware) -> String {
    profile.fingerprint + "\n" + firmware.source
  }

  /// Which of `due` the rollout lets through now.
  func admitToRollout(
    _ due: [ReconcileDue.Candidate], plan: RolloutPlan, firmware: ReconcileFirmware, profile: ReconcileProfile,
    state: inout PassState
  ) async -> [ReconcileDue.Candidate] {
    var rollout = state.ledger.rollouts?[Self.rolloutKey(profile, firmware)] ?? ReconcileRollout()
    let admitted = Set(
      rollout.admit(due.map(\.address), population: Self.rolloutPopulation(profile, state.ledger), plan: plan))
    state.ledger.rollouts = (state.ledger.rollouts ?? [:]).merging([Self.rolloutKey(profile, firmware): rollout]) {
      $1
    }
    for candidate in due where !admitted.contains(candidate.address) {
      let why =
        rollout.stopped
        ?? "held for a later stage of the rollout (the \(ReconcileRollout.name(rollout.stage)) is under way)"
      if state.firstReport(candidate.address, "rollout \(rollout.stage) \(rollout.stopped != nil)") {
        await output.emit(
          .init(event: "skipped-rollout", address: candidate.address, profile: profile.path, reason: why),
          "\(candidate.address): firmware due, \(why)")
      }
    }
    return due.filter { admitted.contains($0.address) }
  }

  /// Records the members' outcomes and ends the stage under way if it can.
  func recordRollout(
    _ outcomes: [String: DeviceOutcome], plan: RolloutPlan, firmware: ReconcileFirmware, profile: ReconcileProfile,
    state: inout PassState
  ) async {
    guard var rollout = state.ledger.rollouts?[Self.rolloutKey(profile, firmware)] else { return }
    for (address, outcome) in outcomes {
      switch outcome {
      case .updated, .planned, .compliant, .skipped: rollout.record(address, failed: false)
      // A neighbour's bootloader hid it, or the pass stopped first: no outcome of its own yet.
      case .failed(_, .bootloaderAtAddress), .pending: break
      case .failed: rollout.record(address, failed: true)
      }
    }
    let population = Self.rolloutPopulation(profile, state.ledger)
    while let step = rollout.advance(population: population, plan: plan) {
      switch step {
      case .stageEnded(let stage, let devices, let failures):
        let next =
          rollout.isComplete(plan) ? "the rollout is complete" : "the \(ReconcileRollout.name(rollout.stage)) starts"
        await output.emit(
          .init(
            event: "rollout-stage", profile: profile.path, reason: ReconcileRollout.name(stage), failures: failures),
          "rollout: the \(ReconcileRollout.name(stage)) ended: \(failures) of \(devices) failed, at or under "
            + "--max-failures \(plan.maxFailures)%; \(next)")
      case .stopped(_, _, let failures, let reason):
        await output.emit(
          .init(event: "rollout-stopped", profile: profile.path, reason: reason, failures: failures), reason)
      }
    }
    state.ledger.rollouts?[Self.rolloutKey(profile, firmware)] = rollout
  }
}
