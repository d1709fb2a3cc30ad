import BeaconCore
import Fleet
import FleetIO
import Foundation
import Profiles

/// Every fleet campaign's path, once: `plan`, `apply` and text commands (`ProfileCampaignPlan`), `dfu
/// update` with a package or from a catalogue (`FirmwareCampaignPlan`), and `audit --connect` (a `plan` on
/// the records the audit heard). In order: the checks that need no radio (`CampaignPlan.checkBeforeRadio`),
/// the resources the caller chose (journal, central, registry), `--resume RUN|last`, the scan (unless the
/// records are given), the selection, the resumed run's unfinished devices, the work (a catalogue campaign
/// resolves its packages here, before any device enters its bootloader), the run in the journal — created,
/// resumed, or joined with the gateways sharing it (`SharedRun`) — then the devices through ONE scheduler,
/// Fleet's `Campaign`, under Ctrl-C (`InterruptibleCampaign`). What happens is reported as `PipelineEvent`
/// values through `emit`; the caller renders them (progress lines, log records) and the `CampaignOutcome`.
///
/// Layering [I]: a module of its own between `Fleet` (the scheduler, the journal, the per-device work) and
/// the command line, not part of `Fleet`, because the pipeline also needs the shared journal's gateway
/// coordination (`FleetIO`, which depends on `Fleet`), the firmware cache and catalogues
/// (`FirmwareIO`, `Firmware`) and package files (`NordicDFUIO`), none of which `Fleet` may import. It
/// has no ArgumentParser and prints nothing: the command line parses options into a `CampaignPlan` and
/// `Settings`, opens the resources, supplies the scan (its scan renderer), and prints.
public struct CampaignPipeline: Sendable {
  /// Scans `central` for `seconds` (ending early once every device of the set has been heard) and returns
  /// what it heard.
  public typealias Scanner =
    @Sendable (
      _ central: any Central, _ seconds: Double, _ completeWhenSeen: Set<BluetoothAddress>
    ) async throws -> [DeviceRecord]

  /// The scheduler's options and the run's identity, as the command line gives them.
  public struct Settings: Sendable {
    /// Links at once on the adapter.
    public var parallel: Int
    /// Attempts per device for transient failures, and the first retry's delay (later ones wait longer).
    public var attempts: Int
    public var retryDelay: Duration
    /// Seconds to scan before the campaign.
    public var scanSeconds: Double
    /// Where the local journal is, as messages name it (the state directory).
    public var place: String
    /// `--resume RUN|last`.
    public var resume: String?
    /// With `resume`, the run's unfinished devices visited: only these (`reconcile` finishing a device its
    /// failed update left in its bootloader, while the run's other devices keep their own backoff); nil: all.
    public var resumeKeeps: Set<String>?
    /// `--run`, `--gateways`, `--settle` of a shared journal (unused on the local one).
    public var shared: SharedRunSettings
    /// `--rollout` (a firmware campaign on this gateway's journal only): the devices go in waves (`RolloutWaves`).
    public var rollout: RolloutPlan?
    /// `--max-failures` as given (nil: not given; a new rollout then has 0%). With `--resume` of a rollout it
    /// replaces the recorded threshold (`RolloutResume`).
    public var maxFailures: Int?
    /// Asked before each new device is started (`Campaign.Options.mayStart`; `reconcile --maintenance-window`).
    public var mayStart: (@Sendable () -> Bool)?
    /// A device a DFU bootloader shadows waits for it (`Campaign.Options.shadowWait`; a shared run's round leaves it
    /// for a later round). `reconcile` says no: its ledger tries it again in a later pass.
    public var waitsOutShadows = true

    public init(
      parallel: Int, attempts: Int, retryDelay: Duration, scanSeconds: Double, place: String, resume: String? = nil,
      shared: SharedRunSettings = SharedRunSettings(), rollout: RolloutPlan? = nil, maxFailures: Int? = nil
    ) {
      (self.parallel, self.attempts, self.retryDelay, self.scanSeconds) = (parallel, attempts, retryDelay, scanSeconds)
      (self.place, self.resume, self.shared, self.rollout) = (place, resume, shared, rollout)
      self.maxFailures = maxFailures
    }
  }

  public var settings: Settings
  /// Opens what the campaign runs on, once the checks that need no radio have passed.
  public var resources: @Sendable () async throws -> CampaignResources
  public var scan: Scanner
  /// Receives every event, in order.
  public var emit: @Sendable (PipelineEvent) -> Void
  /// The scan's records when the caller has scanned already (`audit --connect`): no second scan.
  public var records: [DeviceRecord]?
  /// Besides Ctrl-C, a condition on the scheduler's events that stops the run the same way (tests).
  public var stopWhen: (@Sendable (CampaignEvent) -> Bool)?
  /// Interrupts instead of SIGINT (tests).
  public var interrupts: AsyncStream<Void>?

  public init(
    settings: Settings, resources: @escaping @Sendable () async throws -> CampaignResources, scan: @escaping Scanner,
    emit: @escaping @Sendable (PipelineEvent) -> Void, records: [DeviceRecord]? = nil,
    stopWhen: (@Sendable (CampaignEvent) -> Bool)? = nil, interrupts: AsyncStream<Void>? = nil
  ) {
    (self.settings, self.resources, self.scan, self.emit) = (settings, resources, scan, emit)
    (self.records, self.stopWhen, self.interrupts) = (records, stopWhen, interrupts)
  }

  public func run(_ plan: some CampaignPlan) async throws -> CampaignOutcome {
    try await plan.checkBeforeRadio()
    if settings.rollout != nil || settings.maxFailures != nil, plan.kind != "dfu" {
      throw CampaignFailure("--rollout is for firmware campaigns (dfu update)")
    }
    let resources = try await self.resources()
    if settings.rollout != nil || settings.maxFailures != nil, resources.coordinator != nil {
      // [I] Waves across gateways need the shared journal to hold the wave's state: not built yet. Refused
      // with `--max-failures` alone too: a resumed shared run never reads a recorded rollout, so the
      // threshold would otherwise be accepted and ignored.
      throw CampaignFailure(
        "--rollout and --max-failures run on this machine's journal; with a shared journal (--journal) they are "
          + "not supported yet")
    }
    let (journal, central) = (resources.journal, resources.central)
    for event in plan.announcements { emit(event) }
    let resume = try await settings.resume.asyncMap {
      try await ResumeRun.resolve($0, kind: plan.kind, journal: journal, place: settings.place)
    }
    // The rollout a resumed run goes on with is the one it recorded (`RolloutResume`), checked before the scan.
    var staged = settings.rollout.map { given in settings.maxFailures.map { given.with(maxFailures: $0) } ?? given }
    if let resume, resources.coordinator == nil, let record = try await journal.run(resume) {
      staged = try RolloutResume.plan(
        run: resume, recordedSource: record.source, given: settings.rollout, maxFailures: settings.maxFailures)
    }

    // The run is checked before the scan; a run on this machine's journal with no device left is not
    // scanned for (its resume says so and ends).
    let left = try await resume.asyncMap { try await checkResume(run: $0, plan: plan, resources: resources) }
    var selection: CampaignSelection
    var records: [DeviceRecord] = []
    if left == false, resources.coordinator == nil {
      selection = CampaignSelection(targets: [])
    } else {
      if let given = self.records {
        records = given
      } else {
        emit(.scanning(adapter: central.name, seconds: settings.scanSeconds))
        records = try await scan(central, settings.scanSeconds, plan.completeWhenSeen)
        await resources.registry.sightings(records)
      }
      selection = try plan.select(records)
    }
    if let resume {
      try await resumeSelection(&selection, run: resume, plan: plan, resources: resources, heard: records)
    }
    selection.sharedRun = resume ?? settings.shared.run
    await announceSelection(&selection, plan: plan, records: records, resources: resources)
    let present = try await announceBeforeSurvey(plan, selection, resources)
    let prepared: PreparedWork
    do {
      prepared = try await plan.prepare(selection, resources: resources, parallel: settings.parallel, emit: emit)
      present?.cancel()
    } catch {
      present?.cancel()
      if present != nil, let coordinator = resources.coordinator, let run = selection.sharedRun {
        try? await coordinator.leave(run: run)
      }
      throw error
    }

    let run: String
    if let coordinator = resources.coordinator {
      run = try await SharedRun.join(
        journal: journal, id: resume ?? settings.shared.run, kind: plan.kind, source: plan.source,
        adapter: central.name,
        targets: selection.targets, recipe: try await plan.recipe())
      emit(.shared(run: run, gateway: coordinator.gateway, location: journal.location))
    } else if let resume {
      run = resume
    } else {
      run = try await journal.createRun(
        kind: plan.kind, source: staged.map { $0.source(plan.source) } ?? plan.source, adapter: central.name,
        addresses: selection.targets.map(\.address.description),
        addressTypes: Target.addressTypes(selection.targets), recipe: try await plan.recipe().text)
      // Before any device is touched: after a kill -9 the end-of-run summary never comes.
      if plan.resumable { emit(.started(run: run)) }
    }

    let total = selection.targets.count
    let options = Campaign.Options(
      parallel: settings.parallel,
      retry: RetryPolicy(maximumAttempts: settings.attempts, firstDelay: settings.retryDelay),
      mayStart: settings.mayStart,
      shadowWait: settings.waitsOutShadows ? FirmwareWork.defaultBootloaderQuarantine : .zero,
      deferShadowed: settings.waitsOutShadows && resources.coordinator != nil ? ShadowDeferrals() : nil)
    let (emit, stopWhen, interrupts) = (self.emit, self.stopWhen, self.interrupts)
    let batch: @Sendable ([Target]) async throws -> CampaignSummary = { targets in
      let campaign = Campaign(
        work: prepared.work, targets: prepared.order(targets), journal: journal, run: run, options: options)
      let watcher = Task {
        for await event in campaign.events {
          emit(.campaign(event, total: total))
          if stopWhen?(event) == true { await campaign.requestStop() }
        }
      }
      let summary = try await InterruptibleCampaign.run(
        interrupts: interrupts, start: { await campaign.start() },
        stop: {
          emit(.stopping)
          await campaign.requestStop()
        })
      await watcher.value
      return summary
    }
    let summary: CampaignSummary
    var rollout: RolloutResult?
    if let staged {
      let partitioned = resume == nil ? nil : try await journal.devices(run: run).map(\.address)
      (summary, rollout) = try await RolloutWaves(plan: staged, journal: journal, run: run, emit: emit).start(
        selection.targets, partitioned: partitioned, batch: batch)
    } else {
      // Announced before the survey: the --gateways wait is behind it, not to be sat out twice.
      var shared = settings.shared
      if present != nil { shared.gateways = 1 }
      summary = try await SharedRun.start(
        resources.coordinator, run: run, targets: selection.targets, options: shared, parallel: settings.parallel,
        batch: batch)
    }
    return CampaignOutcome(
      summary: summary, notSeen: selection.notSeen, notSelected: selection.notSelected,
      reports: await prepared.reports?.byAddress ?? [:], version: prepared.version,
      packages: (prepared.packages + (await prepared.packagesResolvedLater())).sorted { $0.url < $1.url },
      rollout: rollout)
  }

  /// `--resume RUN`, before the scan: the run must exist, be of this kind and (on the local journal; the
  /// shared one checks it when joining) be made from this plan's recipe. Returns whether any of its devices
  /// is unfinished (a finished run on this machine's journal is then not scanned for).
  func checkResume(run: String, plan: some CampaignPlan, resources: CampaignResources) async throws -> Bool {
    let journal = resources.journal
    guard let record = try await journal.run(run) else { throw CampaignFailure("no run \(run) in \(settings.place)") }
    guard record.kind == plan.kind else {
      throw CampaignFailure(
        "run \(run) is a \(record.kind) run, not " + (plan.kind == "apply" ? "an apply" : "a \(plan.kind) run"))
    }
    if resources.coordinator == nil {
      try SharedRun.checkResume(record, journal: journal, recipe: try await plan.recipe())
    }
    return try await !unfinished(run: run, journal: journal).isEmpty
  }

  /// The run's devices not finished, kept to `Settings.resumeKeeps` when it is given.
  func unfinished(run: String, journal: any CampaignJournal) async throws -> [JournalDevice] {
    try await journal.devices(run: run).filter {
      !$0.state.isFinal && settings.resumeKeeps?.contains($0.address) ?? true
    }
  }

  /// `--resume RUN`, after the scan (`checkResume` passed): its unfinished devices are visited — those the
  /// scan heard, and with `visitsUnheard` the others by address — and the ones it did not hear are otherwise
  /// not seen. The devices are read again, not taken from `checkResume`: on a shared journal other gateways
  /// finish devices while this one scans. Without `visitsUnheard` (`apply`, `plan`), a connectable device the
  /// scan heard (`heard`) that the profile's rules would not choose now is still the run's: its name may be the
  /// one this run wrote before it was cut short, or its signal dipped under the floor.
  func resumeSelection(
    _ selection: inout CampaignSelection, run: String, plan: some CampaignPlan, resources: CampaignResources,
    heard records: [DeviceRecord]
  ) async throws {
    let unfinished = try await unfinished(run: run, journal: resources.journal)
    let open = Set(unfinished.map(\.address))
    var heard = selection.targets.filter { open.contains($0.address.description) }
    if plan.visitsUnheard {
      selection.targets = Self.resumeTargets(unfinished: unfinished, heard: selection.targets)
      selection.notSeen.removeAll(where: Set(selection.targets.map(\.address.description)).contains)
    } else {
      let chosen = Set(heard.map(\.address.description))
      let kept = records.filter {
        $0.connectable == true && open.contains($0.address.description) && !chosen.contains($0.address.description)
      }
      heard += kept.map { Target(heard: $0) }
      let keptAddresses = Set(kept.map(\.address.description))
      selection.notSelected.removeAll { keptAddresses.contains($0.address) }
      selection.targets = heard
      selection.notSeen = open.subtracting(heard.map(\.address.description)).sorted()
    }
    emit(.resuming(run: run, unfinished: unfinished.count, inRange: heard.count))
  }

  /// The devices a resumed run visits when it visits the unheard: its unfinished devices the scan heard, as
  /// heard, then those it did not hear — a device left in its bootloader does not advertise its application
  /// — by address, with the address type the original run's scan journalled (random, the KKM default, for
  /// runs journalled before types were recorded).
  public static func resumeTargets(unfinished: [JournalDevice], heard: [Target]) -> [Target] {
    let open = Set(unfinished.map(\.address))
    let seen = Set(heard.map(\.address.description))
    return heard.filter { open.contains($0.address.description) }
      + unfinished.filter { !seen.contains($0.address) }.sorted { $0.address < $1.address }.compactMap { device in
        BluetoothAddress(device.address).map { Target(address: $0, addressType: device.addressType ?? .random) }
      }
  }
}

extension Optional {
  /// `map` with an async body.
  fileprivate func asyncMap<T>(_ body: (Wrapped) async throws -> T) async rethrows -> T? {
    guard let value = self else { return nil }
    return try await body(value)
  }
}
