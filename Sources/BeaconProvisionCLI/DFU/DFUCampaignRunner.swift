import BeaconCore
import Firmware
import Fleet
import Foundation
import KBeacon
import NordicDFU
import Profiles
import Simulator

/// The path of `dfu update` (mirrors `CampaignRunner`): validate the package before any radio work (or,
/// with `--firmware`, resolve every package from the catalogue before any device enters its bootloader),
/// read the password, scan, select, take batteries from the advertisements, run `FirmwareWork` with a
/// `NordicFirmwareUpdater` on the shared `Campaign`, and return the summary with the per-device reports.
struct DFUCampaignRunner {
  var command: DFUUpdate
  /// Simulator pacing (tests run unpaced).
  var pace: SimulationPace = .realTime
  /// The radio; nil = the one `--adapter` names (tests pass a simulated central they keep looking at).
  var central: (any Central)? = nil

  struct Result {
    var summary: CampaignSummary
    var reports: [String: FirmwareUpdateReport]
    /// The version a `--package` campaign installs (nil for a catalogue campaign: see `packages`).
    var version: FirmwareVersion?
    var notSeen: [String]
    /// The packages a catalogue campaign resolved (downloaded or from the cache, all verified).
    var packages: [ResolvedPackage] = []
    /// The arguments that finish this run with `--resume` (`dfu update`, its package or firmware, adapter
    /// and state directory).
    var finish: [String] = ["dfu", "update"]
  }

  /// `dfu update` with this run's package (its real path) or catalogue firmware, adapter and state
  /// directory: with `--resume RUN`, it finishes the run.
  var finishArguments: [String] {
    let c = command
    return ["dfu", "update"] + (c.package.map { ["--package", $0] } ?? []) + (c.firmware.map { ["--firmware", $0] } ?? [])
      + (c.adapterOptions.adapter.map { ["--adapter", $0.description] } ?? []) + (c.stateDir.map { ["--state-dir", $0] } ?? [])
  }

  /// One package of a catalogue campaign, for the report.
  struct ResolvedPackage: Encodable, Equatable {
    var url: String
    var version: String
    var sha256: String
  }

  func run() async throws -> Result {
    let c = command
    let expectations = try c.deviceFacts.expectations(defaultHardwareVersion: 52)
    let single = try c.package.map { try Self.checkedPackage(path: $0, expectations: expectations, version: c.version) }
    let downloads = DownloadProgress()
    let source = try c.firmware.map { _ in
      let location = try c.firmwareSource.location()
      return (location: location, cache: try c.firmwareSource.cache(location: location, expectations: expectations, progress: downloads))
    }
    let password = Secret(try c.password.resolve().text)
    if let source { try await CatalogueCampaignPlanner.checkReachable(source.location, cache: source.cache) }

    let resources = try await CampaignResources.open(
      stateDirectory: c.stateDirectory, central: self.central, adapter: c.adapterOptions.adapter,
      scanBackend: c.scanBackend.value, pace: pace, shared: c.shared)
    let (journal, central) = (resources.journal, resources.central)
    let progress = CampaignProgress(json: c.json, describe: Self.describe)
    if let single, let path = c.package {
      progress.note("\(path): \(single.package.images.map(\.kind.rawValue).joined(separator: " + ")) → version \(single.version)")
    } else if let source, let firmware = c.firmware {
      progress.note("firmware \(firmware) from the catalogue \(source.location)" + (c.firmwareSource.offline ? " (offline: the cache \(source.cache.layout.root) only)" : ""))
    }
    progress.note("scanning \(central.name) for \(FieldSpec.Kind.plain(c.scanSeconds)) s …")
    let scan = ScanRunner(settings: DiscoverySettings(window: .seconds(c.scanSeconds)),
      duration: SecondsOption.duration(c.scanSeconds), active: true, mode: .lines,
      // Named devices end the scan once heard; their battery is in the KKM scan response heard with them.
      completeWhenSeen: Set(c.addresses.compactMap { BluetoothAddress($0) }))
    let records = try await scan.scan(central: central, emit: { _ in }).results
    await resources.registry.sightings(records)
    var selection = DFUTargetSelection(records: records, addresses: c.addresses, name: c.name)

    var resumed: String?
    if let given = c.resume {
      let resume = try await ResumeRun.resolve(given, kind: "dfu", journal: journal, place: c.stateDirectory)
      guard let record = try await journal.run(resume) else { throw CLIFailure("no run \(resume) in \(c.stateDirectory)") }
      guard record.kind == "dfu" else { throw CLIFailure("run \(resume) is a \(record.kind) run, not a dfu run") }
      if resources.coordinator == nil { try SharedRun.checkResume(record, journal: journal, recipe: try await recipe()) }
      let unfinished = try await journal.devices(run: resume).filter { !$0.state.isFinal }
      selection.targets = Self.resumeTargets(unfinished: unfinished, heard: selection.targets)
      resumed = resume
      progress.note("resuming \(resume): \(unfinished.count) devices not finished")
    }
    progress.note(CampaignReport.selected(selection.targets.count, notSeen: selection.notSeen.count))

    let opener = KBeaconOpener(central: central, connectTimeout: SecondsOption.duration(c.timeout))
    let (prn, objectDelay, reconnect, timeout) = (c.prn, c.objectDelay, c.reconnectDelay, c.timeout)
    let updater: @Sendable ([DFUTransferImage]) -> NordicFirmwareUpdater = { images in
      NordicFirmwareUpdater(
        opener: opener, password: password, images: images,
        engine: DFUEngineConfiguration(receiptInterval: prn, dataObjectDelay: .milliseconds(objectDelay)),
        reconnectDelay: SecondsOption.duration(reconnect), linkTimeout: SecondsOption.duration(timeout))
    }
    // --min-battery 0 is no floor at all: devices whose battery is unknown are updated too.
    let plan = FirmwarePlan(
      version: single?.version ?? FirmwareVersion("0")!, models: c.model.isEmpty ? nil : c.model, hardware: c.hardware,
      minimumBattery: c.minimumBattery == 0 ? nil : c.minimumBattery)
    let reports = FirmwareReports()
    var work: FirmwareWork
    var packages: [ResolvedPackage] = []
    if let single {
      work = FirmwareWork(plan: plan, updater: updater(single.package.transferImages), batteries: selection.batteries, reports: reports)
    } else if let source, let wanted = c.firmware.flatMap(FirmwareWanted.init) {
      let planner = CatalogueCampaignPlanner(
        cache: source.cache, location: source.location, wanted: wanted, identifier: updater([]), expectations: expectations,
        updater: { updater($0.transferImages) }, plan: plan, batteries: selection.batteries, parallel: c.parallel,
        progress: progress, downloadProgress: downloads)
      let resolved = try await planner.resolve(selection.targets)
      packages = resolved.packages.map { ResolvedPackage(url: $0.key, version: "V\($0.value.version)", sha256: $0.value.sha256) }
        .sorted { $0.url < $1.url }
      work = FirmwareWork(plan: plan, identifier: updater([]), route: resolved.route, batteries: selection.batteries, reports: reports)
    } else {
      throw CLIFailure("give exactly one of --package FILE.zip and --firmware latest|VERSION")
    }
    work.registry = resources.registry

    let run: String
    let origin = c.package ?? "catalogue \(source!.location) firmware \(c.firmware!)"
    if let coordinator = resources.coordinator {
      run = try await SharedRun.join(
        journal: journal, id: resumed ?? c.shared.run, kind: "dfu", source: origin, adapter: central.name,
        targets: selection.targets, recipe: try await recipe())
      progress.note("run \(run) shared as gateway \(coordinator.gateway) in \(journal.location)")
    } else if let resumed {
      run = resumed
    } else {
      run = try await journal.createRun(kind: "dfu", source: origin,
        adapter: central.name, addresses: selection.targets.map(\.address.description),
        addressTypes: Target.addressTypes(selection.targets), recipe: try await recipe().text)
      // Before any device is touched: after a kill -9 the end-of-run summary never comes.
      progress.note(ResumeRun.startLine(run: run, finish: finishArguments))
    }
    let total = selection.targets.count
    let batch: @Sendable ([Target]) async throws -> CampaignSummary = { [work] targets in
      // Neighbouring addresses never run together (`AddressNeighbourhood`): start them apart.
      let campaign = Campaign(
        work: work, targets: AddressNeighbourhood.spread(targets), journal: journal, run: run,
        options: .init(parallel: c.parallel, retry: RetryPolicy(maximumAttempts: c.attempts, firstDelay: SecondsOption.duration(c.retryDelay))))
      let watcher = Task {
        for await event in campaign.events {
          CampaignLog.record(event)
          progress.show(event, total: total)
        }
      }
      let summary = try await InterruptibleCampaign.run(
        interrupts: nil, start: { await campaign.start() },
        stop: {
          progress.note("stopping: transfers in flight finish their device; the rest stay pending (Ctrl-C again to quit now)")
          await campaign.requestStop()
        })
      await watcher.value
      return summary
    }
    let summary = try await SharedRun.start(
      resources.coordinator, run: run, targets: selection.targets, options: c.shared, parallel: c.parallel, batch: batch)
    return Result(
      summary: summary, reports: await reports.byAddress, version: single?.version, notSeen: selection.notSeen, packages: packages,
      finish: finishArguments)
  }

  /// What the run is made from (`RunRecipe`, so a run id reused with another package is refused): the package's bytes (`package`), or the
  /// catalogue's location with the firmware asked for (`catalogue`). Read off the cooperative pool.
  func recipe() async throws -> RunRecipe {
    let c = command
    if let path = c.package {
      return try await BlockingIO.run {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure("--package \(path): cannot read the file") }
        return RunRecipe("package", content: Array(data))
      }
    }
    let location = try c.firmwareSource.location()
    return RunRecipe("catalogue", content: Array("\(location)\nfirmware \(c.firmware ?? "")".utf8))
  }

  /// The `--package` file, checked before any radio work, and the version it installs.
  static func checkedPackage(path: String, expectations: DeviceExpectations, version: String?) throws -> SinglePackage {
    let package = try DFUPackage.load(path: path)
    do {
      try PackageValidator(expectations: expectations).validate(package)
    } catch {
      throw CLIFailure("\(path) refused before connecting: \(error.description)")
    }
    return SinglePackage(package: package, version: try Self.version(of: package, explicit: version, path: path))
  }

  struct SinglePackage {
    var package: DFUPackage
    var version: FirmwareVersion
  }

  /// The devices a resumed run visits: its unfinished devices the scan heard, as heard, then those it did
  /// not hear — a device left in its bootloader does not advertise its application — by address, with the
  /// address type the original run's scan journalled (random, the KKM default, for runs journalled before
  /// types were recorded).
  static func resumeTargets(unfinished: [JournalDevice], heard: [Target]) -> [Target] {
    let open = Set(unfinished.map(\.address))
    let seen = Set(heard.map(\.address.description))
    return heard.filter { open.contains($0.address.description) }
      + unfinished.filter { !seen.contains($0.address) }.sorted { $0.address < $1.address }.compactMap { device in
        BluetoothAddress(device.address).map { Target(address: $0, addressType: device.addressType ?? .random) }
      }
  }

  /// A finished device as the progress lines tell it: a firmware campaign's update is one version change.
  static func describe(_ outcome: DeviceOutcome) -> String {
    guard case .updated(let changes) = outcome, let version = changes.first(where: { $0.key == "ver" }) else {
      return CampaignReport.describe(outcome)
    }
    func text(_ value: SettingValue?) -> String { value.map { $0.textValue ?? $0.description } ?? "?" }
    return "updated firmware \(text(version.old)) -> \(text(version.new)), verified"
  }

  /// `--version`, else the application image's `fw_version` through `KKMFirmwareVersion`.
  static func version(of package: DFUPackage, explicit: String?, path: String) throws -> FirmwareVersion {
    if let explicit, let version = FirmwareVersion(explicit) { return version }
    guard let number = package.images.first(where: { $0.kind == .application })?.initPacket.initCommand.firmwareVersion,
      let version = FirmwareVersion(KKMFirmwareVersion.text(fwVersion: number))
    else { throw CLIFailure("\(path) has no application image with a firmware version; give --version") }
    return version
  }
}
