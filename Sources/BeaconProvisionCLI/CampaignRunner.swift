import BeaconCore
import Fleet
import Foundation
import Profiles
import Simulator

/// The path of `plan` and `apply`: validate the profile (every problem at once, before any radio work),
/// read the passwords, scan, select targets, run the campaign with progress, print the summary. A profile
/// with a `commands` section runs the text-command campaign on text-stream devices.
struct CampaignRunner {
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

  struct Result {
    var summary: CampaignSummary
    var notSeen: [String]
    var notSelected: [TargetSelection.NotSelected] = []
    /// The arguments that finish this run with `--resume` (`apply PROFILE`, its adapter and state directory).
    var finish: [String] = ["apply", "PROFILE"]
  }

  /// `apply` with this run's profile, adapter and state directory: with `--resume RUN`, it finishes the run.
  var finishArguments: [String] {
    ["apply", options.profile] + (options.adapterOptions.adapter.map { ["--adapter", $0.description] } ?? [])
      + (options.stateDir.map { ["--state-dir", $0] } ?? [])
  }

  func run() async throws -> Result {
    // The profile, its inventory and password files are read off the cooperative pool.
    let (loaded, recipe, passwords) = try await BlockingIO.run { [path = options.profile] in
      let (loaded, recipe) = try ProfileFiles.loadForRun(path)
      let auth = loaded.profile.auth
      let passwords = ApplyCampaign.Passwords(
        current: try Secrets.read(auth.password, profile: path),
        new: try auth.newPassword.map { try Secrets.read($0, profile: path) })
      return (loaded, recipe, passwords)
    }
    if let new = passwords.new, !(8...16).contains(new.value.count) {
      throw CLIFailure("\(options.profile): the new password must be 8 to 16 characters")
    }
    let resolver = DesiredResolver(urlCheck: ProfileFiles.eddystoneURLCheck)
    let preflight = TemplatePreflight(profile: loaded, resolver: resolver)
    // The devices the profile names are checked before the scan, the ones only the scan finds after it;
    // both before any connection.
    try Self.check(preflight, TargetSelection.namedAddresses(of: loaded) ?? [])
    let resources = try await CampaignResources.open(
      stateDirectory: options.stateDirectory, central: self.central, adapter: options.adapterOptions.adapter,
      scanBackend: options.scanBackend.value, pace: pace, shared: options.shared)
    let (journal, central) = (resources.journal, resources.central)
    let progress = CampaignProgress(json: options.json)
    var resume = self.resume
    if let given = resume { resume = try await ResumeRun.resolve(given, kind: "apply", journal: journal, place: options.stateDirectory) }

    let records: [DeviceRecord]
    if let given = self.records {
      records = given
    } else {
      progress.note("scanning \(central.name) for \(FieldSpec.Kind.plain(options.scanSeconds)) s …")
      let scan = ScanRunner(settings: DiscoverySettings(window: .seconds(options.scanSeconds)),
        duration: SecondsOption.duration(options.scanSeconds), active: true, mode: .lines,
        completeWhenSeen: TargetSelection.named(by: loaded))
      records = try await scan.scan(central: central, emit: { _ in }).results
      await resources.registry.sightings(records)
    }
    var selection = TargetSelection(profile: loaded, records: records)
    let named = Set(TargetSelection.namedAddresses(of: loaded) ?? [])
    try Self.check(preflight, selection.targets.map(\.address.description).filter { !named.contains($0) })

    let kind = dryRun ? "plan" : "apply"
    let run: String
    if let coordinator = resources.coordinator {
      run = try await SharedRun.join(
        journal: journal, id: resume ?? options.shared.run, kind: kind, source: options.profile, adapter: central.name,
        targets: selection.targets, recipe: recipe)
      progress.note("run \(run) shared as gateway \(coordinator.gateway) in \(journal.location)")
    } else if let resume {
      guard let record = try await journal.run(resume) else { throw CLIFailure("no run \(resume) in \(options.stateDirectory)") }
      guard record.kind == "apply" else { throw CLIFailure("run \(resume) is a \(record.kind) run, not an apply") }
      try SharedRun.checkResume(record, journal: journal, recipe: recipe)
      let open = Set(try await journal.devices(run: resume).filter { !$0.state.isFinal }.map(\.address))
      selection.targets = selection.targets.filter { open.contains($0.address.description) }
      selection.notSeen = open.subtracting(selection.targets.map(\.address.description)).sorted()
      run = resume
      progress.note("resuming \(run): \(open.count) devices not finished, \(selection.targets.count) in range")
    } else {
      run = try await journal.createRun(kind: kind, source: options.profile, adapter: central.name,
        addresses: selection.targets.map(\.address.description),
        addressTypes: Target.addressTypes(selection.targets), recipe: recipe.text)
      // Before any device is touched: after a kill -9 the end-of-run summary never comes.
      if !dryRun { progress.note(ResumeRun.startLine(run: run, finish: finishArguments)) }
    }
    progress.note(CampaignReport.selected(selection.targets.count, notSeen: selection.notSeen.count))

    let total = selection.targets.count
    let campaignOptions = ApplyCampaign.Options(
      parallel: options.parallel,
      retry: RetryPolicy(maximumAttempts: options.attempts, firstDelay: SecondsOption.duration(options.retryDelay)), dryRun: dryRun)
    let batch: @Sendable ([Target]) async throws -> CampaignSummary = { [stopWhen, interrupts] targets in
      let campaign =
        loaded.profile.commands == nil
        ? ApplyCampaign(
          profile: loaded, targets: targets, opener: KBeaconOpener(central: central), journal: journal, run: run,
          options: campaignOptions, passwords: passwords, resolver: resolver, registry: resources.registry)
        : ApplyCampaign(
          textCommands: loaded, targets: targets, opener: TextStreamCommandOpener(central: central), journal: journal,
          run: run, options: campaignOptions)
      let watcher = Task {
        for await event in campaign.events {
          CampaignLog.record(event)
          progress.show(event, total: total)
          if stopWhen?(event) == true { await campaign.requestStop() }
        }
      }
      let summary = try await InterruptibleCampaign.run(
        interrupts: interrupts, start: { await campaign.start() },
        stop: {
          progress.note("stopping: links in flight finish their device; the rest stay pending (Ctrl-C again to quit now)")
          await campaign.requestStop()
        })
      await watcher.value
      return summary
    }
    let summary = try await SharedRun.start(
      resources.coordinator, run: run, targets: selection.targets, options: options.shared, parallel: options.parallel, batch: batch)
    return Result(summary: summary, notSeen: selection.notSeen, notSelected: selection.notSelected, finish: finishArguments)
  }

  /// Every templated value of these devices, filled in and checked (`TemplatePreflight`); all problems at once.
  static func check(_ preflight: TemplatePreflight, _ addresses: [String]) throws {
    let problems = preflight.problems(addresses: addresses)
    guard problems.isEmpty else { throw CLIFailure(problems.joined(separator: "\n")) }
  }
}
