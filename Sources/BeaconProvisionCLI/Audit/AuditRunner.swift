import Audit
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Profiles
import Simulator

/// The path of `audit`: read the profiles and inventory (every problem at once, before any radio work),
/// scan for the whole time, keep the registry current, gather what each device is, with `--connect` read
/// each selected one through the `plan` path, then judge them (`AuditAssembler`).
struct AuditRunner {
  var command: AuditCommand
  /// Simulator pacing (tests run unpaced).
  var pace: SimulationPace = .realTime
  /// The central to use instead of the one `--adapter` names (tests).
  var central: (any Central)? = nil
  var now: @Sendable () -> Date = { Date() }

  func run() async throws -> AuditReport {
    let (profiles, inventory) = try await BlockingIO.run { [command] in
      (try command.profiles.map(ProfileFiles.load), try command.inventory.map { try Self.loadInventory($0) })
    }
    let stateDirectory = StateDirectory.resolve(command.stateDir)
    let resources = try await CampaignResources.open(
      stateDirectory: stateDirectory, central: central, adapter: command.adapterOptions.adapter,
      scanBackend: command.scanBackend.value, pace: pace, location: command.journal)
    let central = resources.central
    let registry = resources.registry.registry

    FileHandleOutput.standardError(
      "audit: scanning \(central.name) for \(FieldSpec.Kind.plain(command.scanSeconds)) s …")
    let scanStarted = now()
    let scan = ScanRunner(
      settings: DiscoverySettings(window: .seconds(command.scanSeconds)),
      duration: SecondsOption.duration(command.scanSeconds), active: true, mode: .lines)
    let records = try await SignalCancellation.run { try await scan.scan(central: central, emit: { _ in }).results }
    await central.stopScans()
    await resources.registry.sightings(records, at: scanStarted)

    var subjects = AuditSubjects(profiles: profiles, inventory: inventory, records: records, scanStarted: scanStarted)
      .subjects
    let blukii = try await AuditInfoManagerLookup.lookUp(records, options: command.infoManager, cacheTimeout: nil)
    for i in subjects.indices { subjects[i].infoManager = blukii.registrations[subjects[i].address] }
    if command.connect {
      let reads = try await connectReads(
        profiles: profiles, records: records, central: central, stateDirectory: stateDirectory)
      for i in subjects.indices { subjects[i].read = reads[subjects[i].address] }
    }
    let known = await AuditKnownFacts.load(registry, addresses: subjects.map(\.address))
    let newest = await NewestFirmware(catalog: command.catalog, firmwareDirectory: command.firmwareDirectory).byDevice(
      known)
    for i in subjects.indices {
      subjects[i].known = known[subjects[i].address]
      subjects[i].newestFirmware = newest[subjects[i].address]
    }
    let thresholds = AuditThresholds(
      batteryPercent: command.lowBattery, batteryMillivolts: command.lowBatteryMv,
      newestFirmware: newest.models)
    return AuditReport(
      generatedAt: now(), mode: command.connect ? .connect : .passive, adapter: central.name,
      profiles: command.profiles,
      inventory: command.inventory, scanSeconds: command.scanSeconds, thresholds: thresholds,
      devices: AuditAssembler(thresholds: thresholds).devices(subjects), infoManager: blukii.server)
  }

  /// `--connect`: each profile's selected devices read through the `plan` path (its GATT cache included) on the records already heard
  /// (no second scan), one profile after another; a device goes to the first profile that selects it
  /// (`CampaignPipeline.firstOutcomes`). Every profile is read before any device is connected to.
  func connectReads(profiles: [LoadedProfile], records: [DeviceRecord], central: any Central, stateDirectory: String)
    async throws -> [String: AuditReadOutcome]
  {
    var plans: [any CampaignPlan] = []
    var first: ApplyInvocation?
    for profile in profiles {
      let arguments =
        [
          profile.profile.file, "--scan", FieldSpec.Kind.plain(command.scanSeconds), "--parallel",
          String(command.parallel),
          "--state-dir", stateDirectory, "--retry-delay", "1",
        ]
      var options = try ProvisionOptions.parse(arguments)
      options.gattCache = command.gattCache
      let invocation = ApplyInvocation(options: options, dryRun: true, resume: nil, pace: pace, central: central)
      plans.append(try await invocation.plan())
      first = first ?? invocation
    }
    guard let first else { return [:] }
    let console = CampaignConsole(progress: CampaignProgress(json: false), finish: [])
    // The GATT cache of the state directory, as `plan` and `apply` use it: a device read before skips its
    // service discovery.
    let outcomes = try await first.options.withGATTCache {
      try await CampaignFailures.translated {
        try await first.pipeline(console).firstOutcomes(of: plans, records: records)
      }
    }
    return outcomes.mapValues { outcome in
      switch outcome {
      case .compliant: .read([])
      case .planned(let changes), .updated(let changes): .read(changes)
      case .skipped(let why): .skipped(why)
      case .failed(let why, _): .failed(why)
      case .pending: .failed("interrupted before it was read")
      }
    }
  }

  /// `identities`: rows may name a beacon identity (only the monitor's inventory; `Inventory`).
  static func loadInventory(_ file: String, identities: Bool = false) throws -> Inventory {
    let data = try InputFile.read(file, limit: .inventory)
    do {
      return try Inventory.parse(Array(data), file: file, identities: identities)
    } catch {
      throw CLIFailure(error.description)
    }
  }
}
