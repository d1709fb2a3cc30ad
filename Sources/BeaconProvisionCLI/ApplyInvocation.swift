import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Profiles
import Simulator

/// `plan` and `apply` as the command line asks for them: the profile, its inventory and passwords read from
/// disk, `ProvisionOptions` turned into a `ProfileCampaignPlan` and the pipeline's `Settings`, the adapter and
/// journal chosen (`CampaignResources.open`), the scan rendered by `ScanRunner`, and the events by
/// `CampaignConsole`. The campaign itself is `CampaignPipeline`'s; its failures become `CLIFailure`s and a
/// second Ctrl-C exit status 130.
struct ApplyInvocation {
  var options: ProvisionOptions
  var dryRun: Bool
  var resume: String?
  /// Simulator pacing (tests run unpaced).
  var pace: SimulationPace = .realTime
  /// Besides Ctrl-C, a condition on the events that stops the run the same way (tests use it to stop
  /// midway).
  var stopWhen: (@Sendable (CampaignEvent) -> Bool)? = nil
  /// The central to use instead of the one `--adapter` names (tests keep it to scan it afterwards).
  var central: (any Central)? = nil
  /// Interrupts instead of SIGINT (tests).
  var interrupts: AsyncStream<Void>? = nil
  /// The scan's records when the caller has scanned already (`audit --connect`): no second scan.
  var records: [DeviceRecord]? = nil

  /// `apply` with this run's profile, adapter and state directory: with `--resume RUN`, it finishes the run.
  var finishArguments: [String] {
    ["apply", options.profile] + options.adapterOptions.finishTail(stateDir: options.stateDir)
  }

  func run() async throws -> CampaignResult {
    let plan = try await self.plan()
    let console = CampaignConsole(progress: CampaignProgress(json: options.json), finish: finishArguments)
    let outcome = try await CampaignFailures.translated { try await pipeline(console).run(plan) }
    return CampaignResult(outcome: outcome, finish: finishArguments)
  }

  /// The profile, its inventory and password files, read off the cooperative pool, as the pipeline's plan.
  func plan() async throws -> ProfileCampaignPlan {
    try await Self.profilePlan(path: options.profile, dryRun: dryRun)
  }

  /// The profile at `path` with its inventory and password files as a plan (`reconcile` reads its profiles so).
  static func profilePlan(path: String, dryRun: Bool) async throws -> ProfileCampaignPlan {
    let (loaded, recipe, passwords) = try await BlockingIO.run {
      let (loaded, recipe) = try ProfileFiles.loadForRun(path)
      let auth = loaded.profile.auth
      let passwords = ApplyCampaign.Passwords(
        current: try Secrets.read(auth.password, profile: path),
        new: try auth.newPassword.map { try Secrets.read($0, field: "newPassword", profile: path) })
      return (loaded, recipe, passwords)
    }
    return try await CampaignFailures.translated {
      try ProfileCampaignPlan(
        profile: loaded, path: path, recipe: recipe, passwords: passwords,
        resolver: DesiredResolver(urlCheck: ProfileFiles.eddystoneURLCheck), dryRun: dryRun)
    }
  }

  func pipeline(_ console: CampaignConsole) -> CampaignPipeline {
    let (options, central, pace) = (options, central, pace)
    return CampaignPipeline(
      settings: .init(
        parallel: options.parallel, attempts: options.attempts, retryDelay: SecondsOption.duration(options.retryDelay),
        scanSeconds: options.scanSeconds, place: options.stateDirectory, resume: resume,
        shared: options.shared.runSettings),
      resources: {
        try await CampaignResources.open(
          stateDirectory: options.stateDirectory, central: central, adapter: options.adapterOptions.adapter,
          scanBackend: options.scanBackend.value, pace: pace, shared: options.shared)
      },
      scan: ScanRunner.campaignScan, emit: console.emit, records: records, stopWhen: stopWhen, interrupts: interrupts)
  }
}

/// A campaign's outcome with the command line that finishes its run (`--resume`), for the reports.
@dynamicMemberLookup
struct CampaignResult {
  var outcome: CampaignOutcome
  /// The arguments that finish this run with `--resume` (`apply PROFILE`, `dfu update --package …`, with
  /// the adapter and state directory).
  var finish: [String]

  subscript<T>(dynamicMember path: KeyPath<CampaignOutcome, T>) -> T { outcome[keyPath: path] }
}

/// The pipeline's failures as the command line's: one line (`CLIFailure`), and a second Ctrl-C as exit 130.
enum CampaignFailures {
  static func translated<T>(_ body: () async throws -> T) async throws -> T {
    do {
      return try await body()
    } catch let failure as CampaignFailure {
      throw CLIFailure(failure.message)
    } catch is CampaignQuit {
      throw ExitCode(130)
    }
  }
}

extension ScanRunner {
  /// The scan before a campaign: plain lines (not shown), ended early once the named devices are heard.
  static let campaignScan: CampaignPipeline.Scanner = { central, seconds, completeWhenSeen in
    let scan = ScanRunner(
      settings: DiscoverySettings(window: .seconds(seconds)), duration: SecondsOption.duration(seconds), active: true,
      mode: .lines,
      completeWhenSeen: completeWhenSeen)
    return try await scan.scan(central: central, emit: { _ in }).results
  }
}

extension SharedJournalOptions {
  /// `--run`, `--gateways`, `--settle` for the pipeline.
  var runSettings: SharedRunSettings { SharedRunSettings(run: run, gateways: gateways, settle: settle) }
}
