import BeaconCore
import Fleet

/// Runs a staged rollout (`RolloutPlan`) through the pipeline's one scheduler: the run's devices in a
/// stable order (by address [I], so a rerun or `--resume` partitions the same fleet the same way), the
/// canary group and then each wave as one batch of `Campaign`, a wave started only when the one before
/// finished at or under the failure threshold. A failure is a device the journal has failed once its wave's
/// batch ended — that includes one that did not come back with the new version (`FirmwareWork` fails it with a
/// version mismatch); a device skipped (already current, battery floor) is not one [I]. Over the threshold the
/// rollout stops: the devices of the later waves are never connected to and stay pending in the journal, so
/// `--resume RUN` continues (`RolloutResume`); the run's status becomes "stopped" [I] (each wave's scheduler
/// wrote "finished" as its batch ended). On a resume, `run`'s devices are partitioned (`partitioned`) and only
/// each wave's unfinished devices (`targets`) are visited; a wave with none is not started again.
struct RolloutWaves: Sendable {
  var plan: RolloutPlan
  var journal: any CampaignJournal
  var run: String
  var emit: @Sendable (PipelineEvent) -> Void

  /// `targets`: the devices to visit; `partitioned`: the addresses of every device of the run, which the
  /// waves partition (nil: the targets', a new run).
  func start(
    _ targets: [Target], partitioned: [String]? = nil,
    batch: @Sendable ([Target]) async throws -> CampaignSummary
  ) async throws -> (CampaignSummary, RolloutResult) {
    let all = (partitioned ?? targets.map(\.address.description)).sorted()
    let visit = Dictionary(targets.map { ($0.address.description, $0) }, uniquingKeysWith: { a, _ in a })
    var outcomes: [String: DeviceOutcome] = [:]
    var waves: [RolloutResult.Wave] = []
    var interrupted = false
    var journalFailure: JournalWriteError?
    var stopped = false
    for (number, range) in plan.partition(all.count) {
      let members = Array(all[range])
      let devices = members.compactMap { visit[$0] }
      let name = plan.name(ofWave: number)
      if !devices.isEmpty {
        emit(.waveStarting(name: name, devices: devices.count, reached: range.upperBound, of: all.count))
        let summary = try await batch(devices)
        outcomes.merge(summary.outcomes) { $1 }
        if summary.interrupted {
          let failures = try await failed(members)
          waves.append(
            .init(number: number, name: name, devices: members.count, failures: failures, overThreshold: false))
          (interrupted, journalFailure) = (true, summary.journalFailure)
          break
        }
      }
      let failures = try await failed(members)
      let over = plan.isOverThreshold(failures: failures, of: members.count)
      // A wave a resume had nothing to visit in and that passes is not reported again.
      if devices.isEmpty && !over { continue }
      waves.append(
        RolloutResult.Wave(number: number, name: name, devices: members.count, failures: failures, overThreshold: over))
      emit(
        .waveFinished(
          name: name, devices: members.count, failures: failures, maxFailures: plan.maxFailures, stops: over))
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
    for target in targets where outcomes[target.address.description] == nil {
      outcomes[target.address.description] = .pending
    }
    let result = RolloutResult(plan: plan, waves: waves, stopped: stopped)
    return (
      CampaignSummary(run: run, outcomes: outcomes, interrupted: interrupted, journalFailure: journalFailure), result
    )
  }

  /// How many of a wave's devices the journal has failed.
  func failed(_ members: [String]) async throws -> Int {
    let wave = Set(members)
    return try await journal.devices(run: run).filter { wave.contains($0.address) && $0.state == .failed }.count
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
