import Fleet

/// A staged rollout as `campaign status RUN` shows it, read from the journal alone (no process has to be
/// alive): the recorded plan's partition of the run's devices in address order (`RolloutPlan.partition`,
/// the one `RolloutWaves` runs), each wave's devices counted by state, and the rollout's verdict. The journal's
/// run status is not enough: each wave's scheduler writes "finished" as its batch ends, so between two waves
/// (or after a kill there) the run reads "finished" while later waves have not started; the verdict comes
/// from the devices instead [I].
public struct RolloutStatus: Sendable, Hashable, Encodable {
  /// One wave: `index` 0 the canary, 1… the waves; `share` the cumulative percentage of the devices after the
  /// canary it reaches (nil for the canary); `done` its devices settled (updated, skipped or failed).
  public struct Wave: Sendable, Hashable, Encodable {
    public var index: Int
    public var name: String
    public var share: Int?
    public var devices: Int
    public var done: Int
    public var failed: Int
    /// Its devices by journal state ("verified": 2, "failed": 1).
    public var states: [String: Int]
    /// "not-started" (no device touched), "in-progress", "passed" (settled, failures at or under the
    /// threshold), "over-threshold" (settled, over it: the rollout stopped here), "accepted" (over the recorded
    /// threshold, but a later wave started: an operator resumed with a higher `--max-failures`).
    public var state: String
  }

  /// "passed" every wave settled at or under the threshold; "stopped" a wave went over it and the later waves
  /// never started; "paused" the waves before `atWave` passed and it has not started (between waves: the
  /// process was stopped or killed there, or is about to start it); "in-progress" `atWave` has started and is
  /// not settled (running, or interrupted: `interrupted`).
  public var verdict: String
  /// The wave the verdict is about (nil when passed).
  public var atWave: Int?
  public var plan: String
  public var waves: [Wave]
  /// For the operator: why the rollout is where it is, and how it goes on.
  public var reason: String

  /// The status of `plan` over a run's devices (address and journal state) whose recorded run status is
  /// `runStatus` ("interrupted" tells an interrupted wave from one still running).
  public init(plan: RolloutPlan, devices: [(address: String, state: String)], runStatus: String) {
    let ordered = devices.sorted { $0.address < $1.address }
    var waves: [Wave] = []
    for (number, range) in plan.partition(ordered.count) {
      let states = ordered[range].map { DeviceState(rawValue: $0.state) }
      let counts = ordered[range].reduce(into: [String: Int]()) { $0[$1.state, default: 0] += 1 }
      let failed = states.filter { $0 == .failed }.count
      let done = states.filter { $0.map { $0.isFinal || $0 == .failed } ?? false }.count
      let untouched = states.allSatisfy { $0 == .pending }
      let state: String
      if done == range.count {
        state = plan.isOverThreshold(failures: failed, of: range.count) ? "over-threshold" : "passed"
      } else {
        state = untouched ? "not-started" : "in-progress"
      }
      waves.append(
        Wave(
          index: number, name: plan.name(ofWave: number), share: number == 0 ? nil : plan.waves[number - 1],
          devices: range.count, done: done, failed: failed, states: counts, state: state))
    }
    // A wave over the threshold with a later wave started was accepted on resume.
    if let lastStarted = waves.lastIndex(where: { $0.state != "not-started" }) {
      for i in waves.indices where i < lastStarted && waves[i].state == "over-threshold" { waves[i].state = "accepted" }
    }
    (self.plan, self.waves) = (plan.text, waves)
    let threshold = "--max-failures \(plan.maxFailures)%"
    if let over = waves.first(where: { $0.state == "over-threshold" }) {
      (verdict, atWave) = ("stopped", over.index)
      reason =
        "stopped after the \(over.name): \(over.failed) of \(over.devices) devices failed, over \(threshold); "
        + "the later waves were not started. Decide, then continue with --resume (a higher --max-failures accepts the wave)"
    } else if let open = waves.first(where: { $0.state != "passed" && $0.state != "accepted" }) {
      atWave = open.index
      let before = open.index == waves.first?.index ? "" : "the waves before passed at or under \(threshold); "
      if open.state == "not-started" {
        verdict = "paused"
        reason =
          "paused before the \(open.name): \(before)it has not started (the rollout was stopped or killed between "
          + "waves, or is about to start it); --resume continues it"
      } else {
        verdict = "in-progress"
        let how = runStatus == "interrupted" ? "interrupted in" : "in"
        reason =
          "\(how) the \(open.name): \(open.done) of \(open.devices) devices done, \(open.failed) failed; \(before)"
          + "the later waves have not started" + (runStatus == "interrupted" ? "; --resume continues it" : "")
      }
    } else {
      (verdict, atWave) = ("passed", nil)
      reason = "every wave finished at or under \(threshold)"
    }
  }

  /// The verdict in a few words, where a run's status goes: "rollout stopped at the wave 2 (25%)".
  public var headline: String {
    let wave = waves.first { $0.index == atWave }
    return "rollout \(verdict)" + (wave.map { " at the \($0.name)" } ?? "")
  }

  /// The lines `campaign status` prints after the device table.
  public var lines: [String] {
    ["rollout \(plan): \(verdict) — \(reason)"]
      + waves.map { w in
        let counts = w.states.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return "\(w.name): \(w.devices) devices — \(counts) — \(w.state)"
      }
  }
}
