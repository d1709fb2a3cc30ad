import CampaignPipeline
import FleetIO
import JSON

/// A site's rollouts on a shared journal: rows of `bp_shared_state` under `rollout` + the ledger's key (the
/// profile's fingerprint, then the firmware source). Every change of a source's rollouts runs in one
/// transaction that holds the source's advisory lock and reads all of them (`PostgresJournal.updateSharedGroup`),
/// so a stop another key carries over (`ReconcileRollout.inheritStop`) is read where the new rollout admits its
/// first devices, and a stop or a resume by another gateway falls wholly before or after it. Only the source's
/// own rows are read: a row another source or a newer release wrote holds nothing back here.
extension ReconcileLoop {
  static let siteRolloutPrefix = "rollout\n"

  /// Runs `change` on the site's rollout under `key` with the source's other rollouts (by ledger key), refused
  /// when it runs another plan than `plan`; returns `change`'s result and the rollout as written.
  static func changeSiteRollout<T: Sendable>(
    _ key: String, source: String, plan: RolloutPlan, site: PostgresJournal,
    _ change: @escaping @Sendable (inout ReconcileRollout, _ others: [String: ReconcileRollout]) -> T
  ) async throws -> (T, ReconcileRollout) {
    try await withSourceRollouts(source, site: site) { found in
      var others = found
      var rollout = others.removeValue(forKey: key) ?? ReconcileRollout()
      try rollout.takePlan(plan, profile: nil)
      let result = change(&rollout, others)
      return ([key: rollout], (result, rollout))
    }
  }

  /// `--resume-rollout` with a shared journal, in one transaction. This gateway's profiles' rollouts (`profiles`:
  /// ledger key → profile path) take `plan` — refused when one runs another, as a start with another plan is —
  /// and go on if they stopped; a profile with none yet gets its row, so gateways without `--rollout` hold their
  /// devices for it from now on, as they would once this gateway admits its first. Every other stopped rollout of
  /// `source` on the site — a profile before an edit, another profile — goes on with its own plan, since its stop
  /// carries over to new rollouts of the source and one left stopped would hold every later edit back. Returns
  /// the rollouts written, by ledger key.
  static func resumeSiteRollouts(
    _ profiles: [String: String], source: String, plan: RolloutPlan, site: PostgresJournal
  ) async throws -> [String: ReconcileRollout] {
    try await withSourceRollouts(source, site: site) { found in
      var written: [String: ReconcileRollout] = [:]
      for (key, path) in profiles.sorted(by: { $0.key < $1.key }) {
        var rollout = found[key] ?? ReconcileRollout()
        try rollout.takePlan(plan, profile: path)
        if rollout.stopped != nil { rollout.resume(plan: plan) }
        written[key] = rollout
      }
      for (key, var rollout) in found where profiles[key] == nil && rollout.stopped != nil {
        rollout.resume(plan: rollout.plan.flatMap { RolloutPlan(text: $0) } ?? plan)
        written[key] = rollout
      }
      return (written, written)
    }
  }

  /// The source's rollouts on the site, read without its lock (a snapshot).
  static func siteRollouts(of source: String, _ site: PostgresJournal) async throws -> [String: ReconcileRollout] {
    let (prefix, suffix) = siteRolloutRows(of: source)
    return try decodeSiteRollouts(try await site.sharedValues(prefix: prefix, suffix: suffix))
  }

  /// Runs `change` on the source's rollouts on the site (by ledger key) in one transaction under the source's
  /// lock, and writes the rollouts it returns (by ledger key; the others are left as they are).
  private static func withSourceRollouts<T: Sendable>(
    _ source: String, site: PostgresJournal,
    _ change:
      @escaping @Sendable ([String: ReconcileRollout]) throws -> (
        written: [String: ReconcileRollout], result: T
      )
  ) async throws -> T {
    let (prefix, suffix) = siteRolloutRows(of: source)
    return try await site.updateSharedGroup(prefix + source, prefix: prefix, suffix: suffix) { rows in
      let (written, result) = try change(try decodeSiteRollouts(rows))
      let encoder = JSONValueEncoder()
      let changed = try written.map { (prefix + $0.key, try encoder.text($0.value)) }
      return (Dictionary(uniqueKeysWithValues: changed), result)
    }
  }

  /// The rows that hold a source's rollouts: keys `rollout\n<fingerprint>\n<source>`.
  private static func siteRolloutRows(of source: String) -> (prefix: String, suffix: String) {
    (siteRolloutPrefix, "\n" + source)
  }

  /// Rows by ledger key. Throws when one does not decode: a rollout that cannot be read holds its source's
  /// firmware back rather than being passed over.
  static func decodeSiteRollouts(_ rows: [String: String]) throws -> [String: ReconcileRollout] {
    var rollouts: [String: ReconcileRollout] = [:]
    for (key, text) in rows {
      do { rollouts[String(key.dropFirst(siteRolloutPrefix.count))] = try decodeRollout(text) } catch {
        throw CLIFailure("the shared journal's rollout row \(key.debugDescription) cannot be read: \(error)")
      }
    }
    return rollouts
  }

  /// On a shared journal, for a gateway started without `--rollout`: why its due devices wait while the site's
  /// rollout of this profile and source is under way or stopped, or — before any rollout of this profile — one
  /// of the source under another key stopped (the profile was edited after it); nil when none holds them.
  func siteRolloutHold(_ profile: ReconcileProfile, _ firmware: ReconcileFirmware, site: PostgresJournal) async
    -> String?
  {
    let key = Self.rolloutKey(profile, firmware)
    let rollouts: [String: ReconcileRollout]
    do { rollouts = try await Self.siteRollouts(of: firmware.source, site) } catch {
      return "the site's rollout cannot be checked (\((error as? CLIFailure)?.message ?? "\(error)"))"
    }
    let resume = "start a gateway with --rollout and --resume-rollout to go on"
    guard let rollout = rollouts[key] else {
      guard let stop = ReconcileRollout.stopOfSource(firmware.source, otherThan: key, in: rollouts) else { return nil }
      return "the site's rollout of this firmware stopped (\(stop)); \(resume)"
    }
    guard let plan = RolloutPlan(text: rollout.plan ?? "") else { return nil }
    if let stop = rollout.stopped { return "the site's rollout stopped (\(stop)); \(resume)" }
    guard !rollout.isComplete(plan) else { return nil }
    return "the site's rollout (--rollout \(plan.text)) is under way on other gateways: start this one with it"
  }
}

extension ReconcileRollout {
  /// Sets the plan this gateway runs the site's rollout with; throws when the rollout (of the profile at `path`,
  /// when named) already runs another: every gateway admits into the same stages.
  fileprivate mutating func takePlan(_ plan: RolloutPlan, profile path: String?) throws {
    if let running = self.plan, running != plan.text {
      let rollout = path.map { "the site's rollout of \($0)" } ?? "the site's rollout"
      throw CLIFailure(
        "\(rollout) runs --rollout \(running); this gateway's is \(plan.text): start it with the same plan")
    }
    self.plan = plan.text
  }
}
