import CampaignPipeline
import Fleet
import FleetIO
import JSON

/// `--rollout` in a firmware pass (`ReconcileRollout`): the due devices the stage under way admits go on to
/// the campaign, the others wait (skipped-rollout, once per device and reason); after the campaign each
/// member's outcome is recorded and a stage that ended is reported (rollout-stage), or the rollout stops over
/// the threshold (rollout-stopped) and no later device is connected to for this source.
///
/// Where the rollout lives: this gateway's schedule (`reconcile.json`), or with a shared journal the site's
/// row in it (`PostgresJournal.updateShared`, key `rollout` + the profile and source), changed under the row's
/// lock, so every gateway admits into the same stages and a stage ends once, whichever gateway checked its
/// devices [I: a journal that does not answer admits nobody this pass; outcomes it could not take are kept
/// and recorded with the next ones].
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

  /// Runs `change` on the rollout under `key` — the site's with `site`, else the ledger's — and keeps the
  /// result in the ledger too (what this gateway last saw). Throws when the site's journal does not answer.
  func changeRollout<T: Sendable>(
    _ key: String, site: PostgresJournal?, state: inout PassState,
    _ change: @escaping @Sendable (inout ReconcileRollout) -> T
  ) async throws -> T {
    guard let site else {
      var rollout = state.ledger.rollouts?[key] ?? ReconcileRollout()
      let result = change(&rollout)
      state.ledger.rollouts = (state.ledger.rollouts ?? [:]).merging([key: rollout]) { $1 }
      return result
    }
    let (result, rollout) = try await site.updateShared("rollout\n" + key) { text in
      var rollout =
        try text.map { try JSONFileDecoder(file: "rollout").decode(ReconcileRollout.self, from: Array($0.utf8)) }
        ?? ReconcileRollout()
      let result = change(&rollout)
      return (try JSONValueEncoder().text(rollout), (result, rollout))
    }
    state.ledger.rollouts = (state.ledger.rollouts ?? [:]).merging([key: rollout]) { $1 }
    return result
  }

  /// Which of `due` the rollout lets through now.
  func admitToRollout(
    _ due: [ReconcileDue.Candidate], plan: RolloutPlan, firmware: ReconcileFirmware, profile: ReconcileProfile,
    site: PostgresJournal?, state: inout PassState
  ) async -> [ReconcileDue.Candidate] {
    let (addresses, population) = (due.map(\.address), Self.rolloutPopulation(profile, state.ledger))
    let admitted: Set<String>
    let held: (stage: Int, stopped: String?)
    do {
      let key = Self.rolloutKey(profile, firmware)
      let seen: ([String], Int, String?) = try await changeRollout(key, site: site, state: &state) { rollout in
        let through = rollout.admit(addresses, population: population, plan: plan)
        return (through, rollout.stage, rollout.stopped)
      }
      admitted = Set(seen.0)
      held = (seen.1, seen.2)
    } catch {
      output.line(
        "reconcile: shared journal: cannot read the rollout of \(profile.path), no firmware this pass: \(error)")
      return []
    }
    for candidate in due where !admitted.contains(candidate.address) {
      let why =
        held.stopped ?? "held for a later stage of the rollout (the \(ReconcileRollout.name(held.stage)) is under way)"
      if state.firstReport(candidate.address, "rollout \(held.stage) \(held.stopped != nil)") {
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
    site: PostgresJournal?, state: inout PassState
  ) async {
    let key = Self.rolloutKey(profile, firmware)
    var ended = state.rolloutOutcomesKept[key] ?? [:]
    for (address, outcome) in outcomes {
      switch outcome {
      case .updated, .planned, .compliant, .skipped: ended[address] = false
      // A neighbour's bootloader hid it, or the pass stopped first: no outcome of its own yet.
      case .failed(_, .bootloaderAtAddress), .pending: break
      case .failed: ended[address] = true
      }
    }
    let population = Self.rolloutPopulation(profile, state.ledger)
    let steps: [ReconcileRollout.Step]
    do {
      steps = try await changeRollout(key, site: site, state: &state) { [ended] rollout in
        for (address, failed) in ended { rollout.record(address, failed: failed) }
        var steps: [ReconcileRollout.Step] = []
        while let step = rollout.advance(population: population, plan: plan) { steps.append(step) }
        return steps
      }
      state.rolloutOutcomesKept[key] = nil
    } catch {
      state.rolloutOutcomesKept[key] = ended
      output.line(
        "reconcile: shared journal: cannot record the rollout of \(profile.path), kept for the next pass: \(error)")
      return
    }
    let complete = state.ledger.rollouts?[key]?.isComplete(plan) ?? false
    for (index, step) in steps.enumerated() {
      switch step {
      case .stageEnded(let stage, let devices, let failures):
        let next =
          complete && index == steps.count - 1
          ? "the rollout is complete" : "the \(ReconcileRollout.name(stage + 1)) starts"
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
  }

  /// `--resume-rollout` at start: this gateway's rollouts of the source, or with a shared journal the site's
  /// rollout of each profile — there only one that stopped, so that gateways started with the flag one after
  /// another resume it once, not a stage each [I: a shared stage that cannot end is not moved past].
  func resumeRollouts(_ profiles: [ReconcileProfile], site: PostgresJournal?, state: inout PassState) async throws {
    guard let firmware = settings.firmware, firmware.resumeRollout, let plan = firmware.rollout else { return }
    guard site != nil else {
      for key in (state.ledger.rollouts ?? [:]).keys where key.hasSuffix("\n" + firmware.source) {
        state.ledger.rollouts?[key]?.resume(plan: plan)
      }
      return
    }
    for profile in profiles {
      try await changeRollout(Self.rolloutKey(profile, firmware), site: site, state: &state) { rollout in
        if rollout.stopped != nil { rollout.resume(plan: plan) }
      }
    }
  }
}
