import BeaconCore
import Fleet

/// Runs a staged rollout (`RolloutPlan`) through the pipeline's one scheduler: the selected devices
/// in a stable order (by address [I], so a rerun or `--resume` partitions the same fleet the same way), the
/// canary group and then each wave as one batch of `Campaign`, a wave started only when the one before
/// finished at or under the failure threshold. A failure is a device whose visit failed — that includes one
/// that did not come back with the new version (`FirmwareWork` fails it with a version mismatch); a device
/// skipped (already current, battery floor) is not one [I]. Over the threshold the rollout stops: the devices
/// of the later waves are never connected to and stay pending in the journal, so `--resume RUN` continues;
/// the run's status becomes "stopped" [I] (each wave's scheduler wrote "finished" as its batch ended).
struct RolloutWaves: Sendable {
  var plan: RolloutPlan
  var journal: any CampaignJournal
  var run: String
  var emit: @Sendable (PipelineEvent) -> Void

  func start(_ targets: [Target], batch: @Sendable ([Target]) async throws -> CampaignSummary) async throws
    -> (CampaignSummary, RolloutResult)
  {
    let ordered = targets.sorted { $0.address.description < $1.address.description }
    var outcomes: [String: DeviceOutcome] = [:]
    var waves: [RolloutResult.Wave] = []
    var interrupted = false
    var journalFailure: JournalWriteError?
    var stopped = false
    for (number, range) in plan.partition(ordered.count) {
      let devices = Array(ordered[range])
      let name = plan.name(ofWave: number)
      emit(.waveStarting(name: name, devices: devices.count, reached: range.upperBound, of: ordered.count))
      let summary = try await batch(devices)
      outcomes.merge(summary.outcomes) { $1 }
      let failures = devices.filter { summary.outcomes[$0.address.description]?.state == .failed }.count
      let over = plan.isOverThreshold(failures: failures, of: devices.count)
      waves.append(
        RolloutResult.Wave(number: number, name: name, devices: devices.count, failures: failures, overThreshold: over))
      if summary.interrupted {
        (interrupted, journalFailure) = (true, summary.journalFailure)
        break
      }
      emit(
        .waveFinished(
          name: name, devices: devices.count, failures: failures, maxFailures: plan.maxFailures, stops: over))
      if over {
        stopped = true
        do {
          try await journal.finish(run: run, status: "stopped")
        } catch {
          throw CampaignFailure(
            "run \(run): the rollout stopped after the \(name), but the journal could not record it: \(error)")
        }
        break
      }
    }
    for target in ordered where outcomes[target.address.description] == nil {
      outcomes[target.address.description] = .pending
    }
    let result = RolloutResult(plan: plan, waves: waves, stopped: stopped)
    return (
      CampaignSummary(run: run, outcomes: outcomes, interrupted: interrupted, journalFailure: journalFailure), result
    )
  }
}

/// How a staged rollout went: each wave that ran, its failures, and whether the rollout stopped over the
/// threshold (`RolloutWaves`).
public struct RolloutResult: Sendable, Hashable {
  public struct Wave: Sendable, Hashable {
    /// 0 the canary, 1… the waves.
    public var number: Int
    public var name: String
    public var devices: Int
    public var failures: Int
    public var overThreshold: Bool
  }

  public var plan: RolloutPlan
  public var waves: [Wave]
  /// The last wave in `waves` crossed the threshold and the later ones never started.
  public var stopped: Bool

  /// Why the rollout stopped, for the operator: which wave, how many failed against the threshold.
  public var stopReason: String? {
    guard stopped, let wave = waves.last else { return nil }
    return
      "rollout stopped after the \(wave.name): \(wave.failures) of \(wave.devices) devices failed, over --max-failures "
      + "\(plan.maxFailures)%; the later waves were not started and their devices stay pending"
  }
}
