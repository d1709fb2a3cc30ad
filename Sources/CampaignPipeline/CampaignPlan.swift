import BeaconCore
import Fleet
import Profiles

/// What one kind of campaign brings to `CampaignPipeline`: everything in which `plan`/`apply` (and text
/// commands, `ProfileCampaignPlan`) and `dfu update` (`FirmwareCampaignPlan`) differ. The pipeline does the
/// rest the same way for all of them: scan, selection, `--resume`, the run in the journal (local or shared),
/// the scheduler, interruption and the events.
public protocol CampaignPlan: Sendable {
  /// The run's kind in the journal: `plan`, `apply` or `dfu`.
  var kind: String { get }
  /// What the run was made from, as the journal's run list shows it (a profile's path, a package's, a catalogue).
  var source: String { get }
  /// Whether the run can be finished with `--resume` (a `plan` cannot: it writes nothing).
  var resumable: Bool { get }
  /// The devices whose sighting ends the scan early (empty: the whole scan).
  var completeWhenSeen: Set<BluetoothAddress> { get }
  /// Devices a resumed run did not hear in its scan are still visited, by address (a device left in its
  /// DFU bootloader does not advertise its application); otherwise they are reported as not seen.
  var visitsUnheard: Bool { get }
  /// `prepare` reads the devices (a catalogue campaign's survey): on a named shared run the gateway joins the
  /// run first, so gateways started together leave each other's nearest devices out of it.
  var surveys: Bool { get }

  /// Every check that needs no radio, before any is used (a profile's templates for the devices it names;
  /// a catalogue that is not there at all). Throws `CampaignFailure`.
  func checkBeforeRadio() async throws
  /// What the pipeline says before it scans (the package and its version; the catalogue).
  var announcements: [PipelineEvent] { get }
  /// The devices of this scan to visit; throws when a selected device cannot be visited (a template it fails).
  func select(_ records: [DeviceRecord]) throws -> CampaignSelection
  /// What the run is made from (`RunRecipe`): a `--resume` or a shared run made from anything else is refused.
  func recipe() async throws -> RunRecipe
  /// The work of one device, for these targets (a catalogue campaign reads them first and resolves their
  /// packages: `CatalogueCampaignPlanner`), once the run's devices are known and before the run is written.
  func prepare(
    _ selection: CampaignSelection, resources: CampaignResources, parallel: Int,
    emit: @escaping @Sendable (PipelineEvent) -> Void
  ) async throws -> PreparedWork
}

/// The devices a campaign visits, those named but not heard, those heard but not selected (and why), and the
/// batteries their advertisements carried (a firmware campaign's floor).
public struct CampaignSelection: Sendable {
  public var targets: [Target]
  public var notSeen: [String]
  public var notSelected: [TargetSelection.NotSelected]
  public var batteries: [String: Int]
  /// The shared run these devices go into when it is named before the campaign starts (`--run`, `--resume`,
  /// reconcile's runs; set by the pipeline): a firmware survey leaves devices only to gateways alive in it
  /// (`GatewayCoordinator.leftToNearer`).
  public var sharedRun: String?
  /// A firmware campaign's targets the scan did not hear, though it heard their DFU bootloader advertising a
  /// name this tool gives (`BootloaderName`): a resumed run's devices left waiting there. The first visit of each
  /// that the journal left mid-transfer goes straight to the bootloader, without trying the silent application
  /// (`BootloaderWaitingDevices`; set by the pipeline).
  public var waitingInBootloader: Set<String> = []

  public init(
    targets: [Target], notSeen: [String] = [], notSelected: [TargetSelection.NotSelected] = [],
    batteries: [String: Int] = [:]
  ) {
    (self.targets, self.notSeen, self.notSelected, self.batteries) = (targets, notSeen, notSelected, batteries)
  }
}

/// One device's work for the scheduler (`Campaign`), and what a firmware campaign reports besides.
public struct PreparedWork: Sendable {
  public var work: any CampaignWork
  /// The order devices start in (a firmware campaign starts neighbouring addresses apart: `AddressNeighbourhood`).
  public var order: @Sendable ([Target]) -> [Target]
  /// Per-device firmware reports, filled as devices are updated.
  public var reports: FirmwareReports?
  /// The version a `--package` campaign installs.
  public var version: FirmwareVersion?
  /// The packages a catalogue campaign resolved before it started.
  public var packages: [ResolvedPackage]
  /// Those it resolved during the campaign, for devices taken over from another gateway (`CatalogueTakeoverRoute`).
  public var packagesResolvedLater: @Sendable () async -> [ResolvedPackage] = { [] }

  public init(
    work: any CampaignWork, order: @escaping @Sendable ([Target]) -> [Target] = { $0 }, reports: FirmwareReports? = nil,
    version: FirmwareVersion? = nil, packages: [ResolvedPackage] = []
  ) {
    (self.work, self.order, self.reports, self.version, self.packages) = (work, order, reports, version, packages)
  }
}

/// One package of a catalogue campaign, for the report.
public struct ResolvedPackage: Encodable, Equatable, Sendable {
  public var url: String
  public var version: String
  public var sha256: String

  public init(url: String, version: String, sha256: String) {
    (self.url, self.version, self.sha256) = (url, version, sha256)
  }
}
