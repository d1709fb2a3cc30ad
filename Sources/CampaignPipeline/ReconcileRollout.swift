/// `reconcile --firmware … --rollout canary=N,waves=P%,…,100% --max-failures P%`: a release reaches a site
/// in stages, as `dfu update --rollout` stages one campaign (`RolloutPlan`), but over a fleet that is heard a
/// few devices at a time and checked as its devices come due. One per profile and firmware source, kept in the
/// ledger. With `--firmware latest` the source does not name the release [I]: once the rollout is complete a
/// newer release goes to the whole site, so pin the version (`--firmware V5.14`) to stage each release; a
/// device found already current, or with no release for it, passes its stage (as `dfu update --rollout` counts
/// it).
///
/// - **Stages** are the plan's canary and waves over the devices the profile manages (`population`, counted at
///   each pass: the addresses its inventory or `select` names, or else its converged devices; a stage that
///   ended stays ended as the population grows, and the last stage takes every device that converges
///   later): stage 0 takes the canary's number of
///   devices, stage k the cumulative share of the rest `RolloutPlan.partition` gives it. A due device joins
///   the stage under way while the stage has room (`admit`); a member is always let through again (its retry
///   after a failure).
/// - **A stage ends** when it is full and each member has an outcome (`record`): updated or found current, or
///   failed — a failure includes a device that did not come back with the new version (`FirmwareWork` fails
///   it). At or under `--max-failures` the next stage starts; over it the rollout stops (`stopped`), the
///   later stages' devices are never connected to for this source, and it stays stopped across restarts
///   until the operator starts reconcile with `--resume-rollout` (the next stage then starts; it also moves a
///   rollout past a stage that cannot end, a member no longer heard) [I].
/// - A stage that cannot fill (its devices are not heard) waits; once every stage has ended, every due
///   device goes through (`isComplete`).
public struct ReconcileRollout: Sendable, Codable, Equatable {
  public struct Member: Sendable, Codable, Equatable {
    public var stage: Int
    /// nil until its check ended; true when it failed.
    public var failed: Bool?

    public init(stage: Int, failed: Bool? = nil) { (self.stage, self.failed) = (stage, failed) }
  }

  /// The stage under way: 0 the canary, k the k-th wave; past the last, the rollout is complete.
  public var stage = 0
  public var members: [String: Member] = [:]
  /// Why it stopped, over the threshold; nil while it goes on.
  public var stopped: String?
  /// Shared by several gateways (a shared journal): the plan it runs (`RolloutPlan.text`), which a gateway
  /// with another `--rollout` may not change, and the largest population any of them counted, which sizes
  /// the stages for all (each gateway knows its own converged devices only). Nil in a gateway's own schedule
  /// written before they existed.
  public var plan: String?
  public var population: Int?
  /// The last `settle` that ended a stage: its token and what it did (nil before any, and in a schedule written
  /// before it existed).
  public var settled: Settled?

  public init() {}

  /// Takes `counted` into the population the stages are sized on (the largest seen) and returns it.
  public mutating func count(_ counted: Int) -> Int {
    let largest = max(population ?? 0, counted)
    population = largest
    return largest
  }

  /// Every stage ended under the threshold: no device is held back any more.
  public func isComplete(_ plan: RolloutPlan) -> Bool { stage > plan.waves.count }

  /// The stage's name as the reports say it.
  public static func name(_ stage: Int) -> String { stage == 0 ? "canary" : "wave \(stage)" }

  /// How many devices the stages up to `stage` hold together, of `population`.
  static func quota(through stage: Int, population: Int, plan: RolloutPlan) -> Int {
    plan.partition(population).filter { $0.number <= stage }.map(\.range.upperBound).max() ?? 0
  }

  /// Which of `due` (addresses, in the order to try them) may be checked now; new members join the stage
  /// under way. A stopped rollout lets none through.
  public mutating func admit(_ due: [String], population: Int, plan: RolloutPlan) -> [String] {
    guard stopped == nil else { return [] }
    skipEmptyStages(population: population, plan: plan)
    if isComplete(plan) { return due }
    var room = Self.quota(through: stage, population: max(population, members.count), plan: plan) - members.count
    var admitted: [String] = []
    for address in due {
      if members[address] != nil {
        admitted.append(address)
      } else if room > 0 {
        members[address] = Member(stage: stage)
        admitted.append(address)
        room -= 1
      }
    }
    return admitted
  }

  /// A member's check ended (`failed`: it did not end on the source's release).
  public mutating func record(_ address: String, failed: Bool) {
    guard members[address] != nil else { return }
    members[address]?.failed = failed
  }

  /// What ending a stage did.
  public enum Step: Sendable, Codable, Equatable {
    /// The stage ended at or under the threshold; the next one starts (or the rollout is complete).
    case stageEnded(stage: Int, devices: Int, failures: Int)
    /// The stage ended over the threshold: the rollout stopped.
    case stopped(stage: Int, devices: Int, failures: Int, reason: String)
  }

  /// Ends the stage under way if it is full and each member has an outcome; nil when it goes on.
  public mutating func advance(population: Int, plan: RolloutPlan) -> Step? {
    skipEmptyStages(population: population, plan: plan)
    guard stopped == nil, !isComplete(plan) else { return nil }
    let inStage = members.values.filter { $0.stage == stage }
    let size = Self.size(of: stage, population: max(population, members.count), plan: plan)
    guard !inStage.isEmpty, inStage.count >= size, inStage.allSatisfy({ $0.failed != nil }) else { return nil }
    let failures = inStage.filter { $0.failed == true }.count
    let ended = stage
    if failures * 100 > plan.maxFailures * inStage.count {
      let reason =
        "rollout stopped after the \(Self.name(ended)): \(failures) of \(inStage.count) devices failed, over "
        + "--max-failures \(plan.maxFailures)%; the later waves' devices are left alone (--resume-rollout goes on)"
      stopped = reason
      return .stopped(stage: ended, devices: inStage.count, failures: failures, reason: reason)
    }
    stage += 1
    return .stageEnded(stage: ended, devices: inStage.count, failures: failures)
  }

  /// How many devices `stage` holds, of `population` (0: a wave too small to hold one, left out).
  static func size(of stage: Int, population: Int, plan: RolloutPlan) -> Int {
    quota(through: stage, population: population, plan: plan)
      - quota(through: stage - 1, population: population, plan: plan)
  }

  /// Passes over the stages that hold no device at this population (a small site's first waves), which
  /// would otherwise never end.
  public mutating func skipEmptyStages(population: Int, plan: RolloutPlan) {
    let counted = max(population, members.count)
    // The last stage (100 %) is never passed over: it takes the devices that converge later.
    while stopped == nil, stage < plan.waves.count, counted > 0,
      Self.size(of: stage, population: counted, plan: plan) == 0,
      !members.values.contains(where: { $0.stage == stage })
    {
      stage += 1
    }
  }

  /// `--resume-rollout`: the operator decided to go on — after a stop, or past a stage that cannot end (a
  /// member no longer heard, its check never finished): the next stage starts, and the stage's members
  /// without an outcome leave the rollout (they join a later stage when they are due).
  public mutating func resume(plan: RolloutPlan) {
    guard stopped != nil || !isComplete(plan) else { return }
    stopped = nil
    members = members.filter { $0.value.stage != stage || $0.value.failed != nil }
    stage += 1
  }
}

extension ReconcileRollout {
  /// Why a rollout of `source` kept under another key than `key` stopped, if one did. The key holds the
  /// profile's content (`ReconcileLoop.rolloutKey`), so editing the profile gives the rollout a new key; the
  /// release that stopped the old one must not get a new canary for it [I: any stopped rollout of the source
  /// counts, another profile's too — the release is the same].
  public static func stopOfSource(_ source: String, otherThan key: String, in rollouts: [String: ReconcileRollout])
    -> String?
  {
    rollouts.filter { $0.key != key && $0.key.hasSuffix("\n" + source) }.compactMap(\.value.stopped).sorted().first
  }

  /// A rollout that has not begun (no member, the canary under way) starts stopped for `reason`
  /// (`stopOfSource`); `--resume-rollout` moves it on as any stopped rollout.
  public mutating func inheritStop(_ reason: String?) {
    guard let reason, stopped == nil, stage == 0, members.isEmpty else { return }
    let note = " (before the profile changed; start reconcile with --resume-rollout to go on)"
    // A stop carried over before (a second edit) says so once.
    stopped = reason.hasSuffix(note) ? reason : reason + note
  }
}

extension ReconcileRollout {
  /// A stage that `settle` ended, and the stage that starts after it (past any empty one).
  public struct SettledStep: Sendable, Codable, Equatable {
    public var step: Step
    public var next: Int

    public init(step: Step, next: Int) { (self.step, self.next) = (step, next) }
  }

  /// What one `settle` did, under the token its caller gave.
  public struct Settled: Sendable, Codable, Equatable {
    public var token: String
    public var steps: [SettledStep]
  }

  /// Records the members' outcomes (`ended`: address → failed) and ends every stage that can end, at
  /// `population` (the largest counted). Returns the stages it ended. `token` names this settling, so that run
  /// again on the rollout it left — a shared journal's transaction run a second time because its COMMIT's reply
  /// was lost on the way, though the COMMIT was made, or on a later pass with more outcomes when the journal did
  /// not answer at all — it returns the steps the first run took as well as any new ones, and each stage's end is
  /// still reported [I: if another gateway settled in between, its token replaced this one and the end is
  /// reported by nobody; that takes a lost reply and a second gateway within the same moment].
  public mutating func settle(_ ended: [String: Bool], population: Int, plan: RolloutPlan, token: String)
    -> [SettledStep]
  {
    for (address, failed) in ended { record(address, failed: failed) }
    let counted = count(population)
    var steps = settled?.token == token ? settled?.steps ?? [] : []
    while let step = advance(population: counted, plan: plan) {
      var after = self
      after.skipEmptyStages(population: counted, plan: plan)
      steps.append(SettledStep(step: step, next: after.stage))
    }
    if !steps.isEmpty { settled = Settled(token: token, steps: steps) }
    return steps
  }
}
