/// `dfu update --resume RUN` of a staged rollout: the operator has decided, and the rollout goes on with the
/// plan the run recorded (`RolloutPlan.source`), over the same partition of the run's devices. The semantics
/// are a choice [I] (hawkBit and Memfault resume a paused rollout where it stopped, with its own groups):
/// - `--resume RUN` alone continues with the recorded plan and threshold. Each wave's unfinished devices
///   (pending, interrupted, and failed: a resume retries failures, as every `--resume` does) are visited in
///   the wave's turn; a wave whose devices are all settled is not visited again. The wave that stopped the
///   rollout is judged again after its failed devices were retried: still over the threshold, it stops again
///   (exit 4) and the later waves stay untouched.
/// - `--max-failures P%` with `--resume` replaces the recorded threshold for this resume: a higher one accepts
///   the wave that stopped (the operator's decision) and judges the later waves by it. The journal keeps the
///   first threshold (`campaign status` shows such a wave as "accepted").
/// - `--rollout` with `--resume` must name the recorded canary and waves, else it is refused naming both (it
///   cannot re-partition devices half of which already went); `--rollout` or `--max-failures` with `--resume`
///   of a run that was not a rollout is refused.
public enum RolloutResume {
  /// The plan a resumed run goes on with: the recorded one (nil: the run was not a rollout) with `maxFailures`
  /// when given; `given` (`--rollout`) must match it.
  public static func plan(run: String, recordedSource source: String, given: RolloutPlan?, maxFailures: Int?)
    throws(CampaignFailure) -> RolloutPlan?
  {
    guard var recorded = RolloutPlan(recordedSource: source) else {
      if given != nil || maxFailures != nil {
        throw CampaignFailure(
          "run \(run) was not started with --rollout: resume it without --rollout and --max-failures "
            + "(a rollout cannot begin half-way through a run)")
      }
      return nil
    }
    if let given, given.canary != recorded.canary || given.waves != recorded.waves {
      throw CampaignFailure(
        "--rollout \(given.stages) does not match run \(run)'s recorded rollout \(recorded.stages): resume it with "
          + "--rollout \(recorded.stages) or without --rollout (the recorded one is used)")
    }
    if let maxFailures { recorded.maxFailures = maxFailures }
    return recorded
  }
}
