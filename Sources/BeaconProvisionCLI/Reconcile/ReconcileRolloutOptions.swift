import ArgumentParser
import CampaignPipeline

/// `reconcile --firmware … --rollout canary=N,waves=P%,…,100% [--max-failures P%] [--resume-rollout]`: the
/// firmware goes out in stages over the site (`ReconcileRollout`), with `dfu update --rollout`'s syntax
/// (`RolloutPlan`).
struct ReconcileRolloutOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Stage the firmware over the site: the canary's devices first, then each wave's cumulative share of the "
        + "rest, each only when the one before ended at or under --max-failures (with --firmware).",
      valueName: "canary=N,waves=P%,…,100%"))
  var rollout: String?

  @Option(
    help: ArgumentHelp(
      "Failures a stage may have, in percent of its devices; over it the rollout stops (default 0%).",
      valueName: "percent"))
  var maxFailures: String?

  @Flag(help: "Go on with a rollout that stopped over --max-failures: its next stage starts.")
  var resumeRollout = false

  /// The plan, or nil without --rollout; a wrong one, or one without --firmware, is a usage error naming the
  /// option.
  func plan(firmware: String?) throws -> RolloutPlan? {
    guard let rollout else {
      if maxFailures != nil || resumeRollout {
        throw ValidationError("--max-failures and --resume-rollout are for --rollout")
      }
      return nil
    }
    guard firmware != nil else { throw ValidationError("--rollout is for --firmware") }
    do { return try RolloutPlan(rollout: rollout, maxFailures: maxFailures) } catch {
      throw ValidationError(error.description)
    }
  }
}
