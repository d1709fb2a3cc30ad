import CampaignPipeline
import Fleet
import FleetIO
import Foundation
import JSON

/// `--rollout` in a firmware pass (`ReconcileRollout`): the due devices the stage under way admits go on to
/// the campaign, the others wait (skipped-rollout, once per device and reason); after the campaign each
/// member's outcome is recorded and a stage that ended is reported (rollout-stage), or the rollout stops over
/// the threshold (rollout-stopped) and no later device is connected to for this source.
///
/// Where the rollout lives: this gateway's schedule (`reconcile.json`), or with a shared journal the site's row in it
/// (key `rollout` + the profile and source), changed under the source's lock (`changeSiteRollout`), so every gateway
/// admits into the same stages and a stage ends once, whichever gateway checked its devices. The row holds the plan (a
/// gateway started with another `--rollout` is refused; one started without it holds its devices while the site's
/// rollout is under way: `siteRolloutHold`) and the largest population any gateway counted, which sizes the stages for
/// all; outcomes of members another gateway settled are recorded from the firmware run's rows, so a gateway that died
/// after an update does not leave its stage open [I: a journal that does not answer admits nobody this pass; outcomes
/// it could not take are kept and recorded with the next ones]. The rollout is keyed by the profile's content, so an
/// edit of the profile starts a new one: a stop of the source under another key carries over to it until
/// `--resume-rollout`, on a gateway's schedule and on the site alike (`ReconcileRollout.inheritStop`).
extension ReconcileLoop {
  /// The devices the profile manages as this gateway counts them (the rollout's population): the addresses its
  /// inventory or `select` names, or its converged devices this gateway knows, whichever is more.
  static func rolloutPopulation(_ profile: ReconcileProfile, _ ledger: ReconcileLedger) -> Int {
    let converged = ledger.devices.values.filter { $0.fingerprint == profile.fingerprint && $0.verifiedAt != nil }
    return max(TargetSelection.namedAddresses(of: profile.loaded)?.count ?? 0, converged.count)
  }

  /// Where the ledger keeps a profile's rollout of a firmware source.
  static func rolloutKey(_ profile: ReconcileProfile, _ firmware: ReconcileFirmware) -> String {
    profile.fingerprint + "\n" + firmware.source
  }

  /// Runs `change` on the rollout under `key` — the site's with `site` (refused when it runs another plan),
  /// else the ledger's — with the other rollouts (by ledger key: with `site`, the source's on the site, read in
  /// the same transaction), and keeps the result in the ledger too (what this gateway last saw). Throws when
  /// the site's journal does not answer.
  func changeRollout<T: Sendable>(
    _ key: String, source: String, plan: RolloutPlan, site: PostgresJournal?, state: inout PassState,
    _ change: @escaping @Sendable (inout ReconcileRollout, _ others: [String: ReconcileRollout]) -> T
  ) async throws -> T {
    guard let site else {
      var rollout = state.ledger.rollouts?[key] ?? ReconcileRollout()
      let result = change(&rollout, (state.ledger.rollouts ?? [:]).filter { $0.key != key })
      state.ledger.rollouts = (state.ledger.rollouts ?? [:]).merging([key: rollout]) { $1 }
      return result
    }
    let (result, rollout) = try await Self.changeSiteRollout(key, source: source, plan: plan, site: site, change)
    state.ledger.rollouts = (state.ledger.rollouts ?? [:]).merging([key: rollout]) { $1 }
    return result
  }

  static func decodeRollout(_ text: String) throws -> ReconcileRollout {
    try JSONFileDecoder(file: "rollout").decode(ReconcileRollout.self, from: Array(text.utf8))
  }

  /// Which of `due` the rollout lets through now.
  func admitToRollout(
    _ due: [ReconcileDue.Candidate], plan: RolloutPlan, firmware: ReconcileFirmware, profile: ReconcileProfile,
    site: PostgresJournal?, state: inout PassState
  ) async -> [ReconcileDue.Candidate] {
    let (addresses, population) = (due.map(\.address), Self.rolloutPopulation(profile, state.ledger))
    let key = Self.rolloutKey(profile, firmware)
    let seen: (admitted: [String], stage: Int, stopped: String?)
    do {
      // A stop of the source under another key carries over, from where the rollouts live (`--resume-rollout`
      // resumes every rollout of the source there, so it is one nobody resumed): with a shared journal the
      // site's, read under the source's lock, not the copies a gateway's schedule keeps.
      let source = firmware.source
      seen = try await changeRollout(key, source: source, plan: plan, site: site, state: &state) { rollout, others in
        rollout.inheritStop(ReconcileRollout.stopOfSource(source, otherThan: key, in: others))
        let through = rollout.admit(addresses, population: rollout.count(population), plan: plan)
        return (through, rollout.stage, rollout.stopped)
      }
    } catch {
      let reason = (error as? CLIFailure)?.message ?? "\(error)"
      output.line("reconcile: cannot take part in the rollout of \(profile.path), no firmware this pass: \(reason)")
      return []
    }
    let admitted = Set(seen.admitted)
    for candidate in due where !admitted.contains(candidate.address) {
      let why =
        seen.stopped ?? "held for a later stage of the rollout (the \(ReconcileRollout.name(seen.stage)) is under way)"
      if state.firstReport(candidate.address, "rollout \(seen.stage) \(seen.stopped != nil)") {
        await output.emit(
          .init(event: "skipped-rollout", address: candidate.address, profile: profile.path, reason: why),
          "\(candidate.address): firmware due, \(why)")
      }
    }
    return due.filter { admitted.contains($0.address) }
  }

  /// Records the members' outcomes — this gateway's (`outcomes`) and those another gateway settled
  /// (`elsewhere`: address → failed) — and ends the stage under way if it can.
  func recordRollout(
    _ outcomes: [String: DeviceOutcome], elsewhere: [String: Bool], plan: RolloutPlan, firmware: ReconcileFirmware,
    profile: ReconcileProfile, site: PostgresJournal?, state: inout PassState
  ) async {
    let key = Self.rolloutKey(profile, firmware)
    let kept = state.rolloutOutcomesKept[key]
    var ended = (kept?.ended ?? [:]).merging(elsewhere) { $1 }
    for (address, outcome) in outcomes {
      switch outcome {
      case .updated, .planned, .compliant, .skipped: ended[address] = false
      // A neighbour's bootloader hid it, or the pass stopped first: no outcome of its own yet.
      case .failed(_, .bootloaderAtAddress), .pending: break
      case .failed: ended[address] = true
      }
    }
    let population = Self.rolloutPopulation(profile, state.ledger)
    let steps: [ReconcileRollout.SettledStep]
    let token = kept?.token ?? UUID().uuidString
    do {
      steps = try await changeRollout(key, source: firmware.source, plan: plan, site: site, state: &state) {
        [ended] rollout, _ in rollout.settle(ended, population: population, plan: plan, token: token)
      }
      state.rolloutOutcomesKept[key] = nil
    } catch {
      state.rolloutOutcomesKept[key] = (ended, token)
      let reason = (error as? CLIFailure)?.message ?? "\(error)"
      output.line("reconcile: cannot record the rollout of \(profile.path), kept for the next pass: \(reason)")
      return
    }
    for settled in steps {
      let next = settled.next
      switch settled.step {
      case .stageEnded(let stage, let devices, let failures):
        let starts = next > plan.waves.count ? "the rollout is complete" : "the \(ReconcileRollout.name(next)) starts"
        await output.emit(
          .init(
            event: "rollout-stage", profile: profile.path, reason: ReconcileRollout.name(stage), failures: failures),
          "rollout: the \(ReconcileRollout.name(stage)) ended: \(failures) of \(devices) failed, at or under "
            + "--max-failures \(plan.maxFailures)%; \(starts)")
      case .stopped(_, _, let failures, let reason):
        await output.emit(
          .init(event: "rollout-stopped", profile: profile.path, reason: reason, failures: failures), reason)
      }
    }
  }

  /// `--resume-rollout` at start: this gateway's rollouts of the source, or with a shared journal the site's
  /// stopped rollouts of the source (`resumeSiteRollouts`) — there one that stopped only [I: a shared stage that
  /// cannot end is not moved past; like `--resume-rollout` on one gateway, the flag resumes whatever stop it
  /// finds at each start, so take it out of a unit file once used].
  func resumeRollouts(_ profiles: [ReconcileProfile], site: PostgresJournal?, state: inout PassState) async throws {
    guard let firmware = settings.firmware, firmware.resumeRollout, let plan = firmware.rollout else { return }
    guard let site else {
      for key in (state.ledger.rollouts ?? [:]).keys where key.hasSuffix("\n" + firmware.source) {
        state.ledger.rollouts?[key]?.resume(plan: plan)
      }
      return
    }
    do {
      let paths = Dictionary(profiles.map { (Self.rolloutKey($0, firmware), $0.path) }) { first, _ in first }
      let written = try await Self.resumeSiteRollouts(paths, source: firmware.source, plan: plan, site: site)
      state.ledger.rollouts = (state.ledger.rollouts ?? [:]).merging(written) { $1 }
    } catch {
      throw CLIFailure("--resume-rollout: " + ((error as? CLIFailure)?.message ?? "\(error)"))
    }
  }
}
