import BeaconCore
import Firmware
import FirmwareIO
import Fleet
import Foundation
import KBeacon
import NordicDFU
import NordicDFUIO
import OwnThreads
import Profiles

/// `dfu update` (`CampaignPlan`): a Secure DFU campaign over the fleet (docs/protocols/nordic-dfu.md §2). With a package,
/// it is validated before any radio work; with a catalogue (`--firmware latest|VERSION`), every package is
/// resolved from it before any device enters its bootloader (`CatalogueCampaignPlanner`). Devices are
/// selected from the scan with the batteries their advertisements carry (`DFUTargetSelection`), then per
/// device `FirmwareWork` with a `NordicFirmwareUpdater`, neighbouring addresses started apart
/// (`AddressNeighbourhood`).
public struct FirmwareCampaignPlan: CampaignPlan {
  /// Where the firmware comes from.
  public enum Firmware: Sendable {
    /// One package for every device: its file, and the version it installs.
    case package(path: String, SinglePackage)
    /// Each device's package from the catalogue: `latest` or a version, the catalogue's place, the cache
    /// that downloads and verifies, and whether only the cache is used (`--offline`).
    case catalogue(
      firmware: String, wanted: FirmwareWanted, location: CatalogueLocation, cache: FirmwareCache, offline: Bool)
  }

  /// How the transfer runs (`--prn`, `--object-delay`, `--reconnect-delay`, `--timeout`).
  public struct Transfer: Sendable {
    public var receiptInterval: UInt16
    public var objectDelay: Duration
    public var reconnectDelay: Duration
    public var timeout: Duration

    public init(
      receiptInterval: UInt16 = 12, objectDelay: Duration = .milliseconds(300),
      reconnectDelay: Duration = .milliseconds(500),
      timeout: Duration = .seconds(10)
    ) {
      (self.receiptInterval, self.objectDelay, self.reconnectDelay, self.timeout) = (
        receiptInterval, objectDelay, reconnectDelay, timeout
      )
    }
  }

  public var firmware: Firmware
  /// The `--package` checks (hardware version 52 by default, --public-key …).
  public var expectations: DeviceExpectations
  public var password: Secret
  /// `--address` (only these) and `--name` (a glob on the advertised name).
  public var addresses: [String]
  public var name: String?
  /// `--model` globs (empty: any), `--hardware`, `--min-battery` (0: no floor, unknown batteries included).
  public var models: [String]
  public var hardware: String?
  public var minimumBattery: Int
  public var transfer: Transfer
  /// How long the device above waits after an update failed past the jump (`FirmwareWork.bootloaderQuarantine`);
  /// nil for reconcile, whose ledger defers a shadowed neighbour to a later pass instead of holding a link.
  public var bootloaderQuarantine: Duration? = FirmwareWork.defaultBootloaderQuarantine

  public init(
    firmware: Firmware, expectations: DeviceExpectations, password: Secret, addresses: [String] = [],
    name: String? = nil,
    models: [String] = [], hardware: String? = nil, minimumBattery: Int = 30, transfer: Transfer = Transfer()
  ) {
    (self.firmware, self.expectations, self.password, self.addresses, self.name) = (
      firmware, expectations, password, addresses, name
    )
    (self.models, self.hardware, self.minimumBattery, self.transfer) = (models, hardware, minimumBattery, transfer)
  }

  public var kind: String { "dfu" }
  public var resumable: Bool { true }
  public var visitsUnheard: Bool { true }
  public var surveys: Bool {
    if case .catalogue = firmware { true } else { false }
  }
  /// Named devices end the scan once heard; their battery is in the KKM scan response heard with them.
  public var completeWhenSeen: Set<BluetoothAddress> { Set(addresses.compactMap { BluetoothAddress($0) }) }

  public var source: String {
    switch firmware {
    case .package(let path, _): path
    case .catalogue(let firmware, _, let location, _, _): "catalogue \(location) firmware \(firmware)"
    }
  }

  public var announcements: [PipelineEvent] {
    switch firmware {
    case .package(let path, let single):
      [.package(path: path, images: single.package.images.map(\.kind.rawValue), version: single.version)]
    case .catalogue(let firmware, _, let location, let cache, let offline):
      [.catalogue(firmware: firmware, location: "\(location)", offlineCache: offline ? cache.layout.root : nil)]
    }
  }

  public func checkBeforeRadio() async throws {
    if case .catalogue(_, _, let location, let cache, _) = firmware {
      try await CatalogueCampaignPlanner.checkReachable(location, cache: cache)
    }
  }

  public func select(_ records: [DeviceRecord]) throws -> CampaignSelection {
    let selection = DFUTargetSelection(records: records, addresses: addresses, name: name)
    return CampaignSelection(targets: selection.targets, notSeen: selection.notSeen, batteries: selection.batteries)
  }

  /// What the run is made from (`RunRecipe`, so a run id reused with another package is refused): the package's bytes (`package`), or the
  /// catalogue's location with the firmware asked for (`catalogue`). Read off the cooperative pool.
  public func recipe() async throws -> RunRecipe {
    switch firmware {
    case .package(let path, _):
      return try await OwnThread.run("beacon-provision.blocking-io") {
        guard let data = FileManager.default.contents(atPath: path) else {
          throw CampaignFailure("--package \(path): cannot read the file")
        }
        return RunRecipe("package", content: Array(data))
      }
    case .catalogue(let firmware, _, let location, _, _):
      return RunRecipe("catalogue", content: Array("\(location)\nfirmware \(firmware)".utf8))
    }
  }

  public func prepare(
    _ selection: CampaignSelection, resources: CampaignResources, parallel: Int,
    emit: @escaping @Sendable (PipelineEvent) -> Void
  ) async throws -> PreparedWork {
    let opener = KBeaconOpener(central: resources.central, connectTimeout: transfer.timeout)
    let (password, transfer) = (self.password, self.transfer)
    let waiting = selection.waitingInBootloader
    let updater: @Sendable ([DFUTransferImage]) -> NordicFirmwareUpdater = { images in
      NordicFirmwareUpdater(
        opener: opener, password: password, images: images,
        engine: DFUEngineConfiguration(
          receiptInterval: transfer.receiptInterval, dataObjectDelay: transfer.objectDelay),
        reconnectDelay: transfer.reconnectDelay, linkTimeout: transfer.timeout)
    }
    var version: FirmwareVersion?
    if case .package(_, let single) = firmware { version = single.version }
    // --min-battery 0 is no floor at all: devices whose battery is unknown are updated too.
    let plan = FirmwarePlan(
      version: version ?? FirmwareVersion("0")!, models: models.isEmpty ? nil : models, hardware: hardware,
      minimumBattery: minimumBattery == 0 ? nil : minimumBattery)
    let reports = FirmwareReports()
    var work: FirmwareWork
    var packages: [ResolvedPackage] = []
    var latePackages: @Sendable () async -> [ResolvedPackage] = { [] }
    switch firmware {
    case .package(_, let single):
      work = FirmwareWork(
        plan: plan, updater: updater(single.package.transferImages), batteries: selection.batteries, reports: reports)
    case .catalogue(_, let wanted, let location, let cache, _):
      var planner = CatalogueCampaignPlanner(
        cache: cache, location: location, wanted: wanted, identifier: updater([]), expectations: expectations,
        updater: { updater($0.transferImages) }, plan: plan, batteries: selection.batteries, parallel: parallel,
        emit: emit)
      (planner.leftMidTransfer, planner.transferredFrom) = await Self.leftMidTransfer(selection, resources)
      planner.waitingInBootloader = waiting
      let registry = resources.registry.registry
      planner.recall = { address in
        guard let device = try? await registry.device(address) else { return nil }
        return DeviceIdentity(
          model: device.model, hardware: device.hardwareVersion,
          firmware: device.firmwareVersion.flatMap(FirmwareVersion.init))
      }
      let resolved = try await planner.resolve(await Self.surveyTargets(selection, resources, emit))
      packages = resolved.packages.map {
        ResolvedPackage(url: $0.key, version: "V\($0.value.version)", sha256: $0.value.sha256)
      }
      .sorted { $0.url < $1.url }
      let (late, before) = (LateCataloguePlans(planner: planner), Set(packages.map(\.url)))
      latePackages = { await late.packages().filter { !before.contains($0.url) } }
      let route = CatalogueTakeoverRoute(base: resolved.route, late: late, recall: planner.recallIdentity)
      work = FirmwareWork(
        plan: plan, identifier: updater([]), route: route, batteries: selection.batteries, reports: reports)
    }
    work.registry = resources.registry
    work.bootloaderQuarantine = bootloaderQuarantine
    work.waitingInBootloader = BootloaderWaitingDevices(waiting)
    // Neighbouring addresses never run together (`AddressNeighbourhood`): start them apart.
    var prepared = PreparedWork(
      work: work, order: { AddressNeighbourhood.spread($0) }, reports: reports, version: version, packages: packages)
    prepared.packagesResolvedLater = latePackages
    return prepared
  }

  /// The targets the run's journal left mid-transfer (step `transferring`, not finished) — on a resume, or on a
  /// named shared run where another gateway's visit broke off — and the version each transfer started from (its
  /// `ver` change). None for a new run, or when the journal does not answer (their visits then find out as
  /// before).
  static func leftMidTransfer(_ selection: CampaignSelection, _ resources: CampaignResources) async -> (
    Set<String>, [String: FirmwareVersion]
  ) {
    guard let run = selection.sharedRun, let rows = try? await resources.journal.devices(run: run) else {
      return ([], [:])
    }
    let targets = Set(selection.targets.map(\.address.description))
    let left = rows.filter { $0.isLeftMidTransfer && targets.contains($0.address) }
    let from = left.compactMap { row in
      row.changeList.first { $0.key == "ver" }?.old.flatMap(FirmwareVersion.init).map { (row.address, $0) }
    }
    return (Set(left.map(\.address)), Dictionary(from, uniquingKeysWith: { a, _ in a }))
  }

  /// The targets a catalogue campaign surveys: all of them, or on a named shared run those the nearest-gateway
  /// rule leaves to another gateway alive in that run (`GatewayCoordinator.leftToNearer`; a run not named yet,
  /// or a journal that does not answer, leaves none out).
  static func surveyTargets(
    _ selection: CampaignSelection, _ resources: CampaignResources, _ emit: @Sendable (PipelineEvent) -> Void
  ) async -> [Target] {
    let targets = selection.targets
    guard let coordinator = resources.coordinator, let run = selection.sharedRun,
      let left = try? await coordinator.leftToNearer(targets, run: run), !left.isEmpty
    else { return targets }
    emit(.surveyLeft(left))
    return targets.filter { left[$0.address.description] == nil }
  }

  /// A `--package` file's package, checked before any radio work, and the version it installs.
  public struct SinglePackage: Sendable {
    public var package: DFUPackage
    public var version: FirmwareVersion

    /// Reads and validates the package at `path`; the version is `explicit` (`--package-version`), else the
    /// application image's `fw_version` through `KKMFirmwareVersion`.
    public init(path: String, expectations: DeviceExpectations, explicit: String?) throws {
      package = try DFUPackage.open(path: path)
      do {
        try PackageValidator(expectations: expectations).validate(package)
      } catch {
        throw CampaignFailure("\(path) refused before connecting: \(error.description)")
      }
      if let explicit, let given = FirmwareVersion(explicit) {
        version = given
      } else if let number = package.images.first(where: { $0.kind == .application })?.initPacket.initCommand
        .firmwareVersion,
        let found = FirmwareVersion(KKMFirmwareVersion.text(fwVersion: number))
      {
        version = found
      } else {
        throw CampaignFailure("\(path) has no application image with a firmware version; give --package-version")
      }
    }
  }
}

extension DFUPackage {
  /// Opens a package file for a campaign (through libzip): a missing file or a package that cannot be read
  /// becomes one operator sentence naming the file.
  static func open(path: String) throws -> DFUPackage {
    guard FileManager.default.fileExists(atPath: path) else { throw CampaignFailure("\(path): no such file") }
    do {
      return try DFUPackage(archive: LibzipArchive(path: path))
    } catch {
      throw CampaignFailure("\(path): \(error.description)")
    }
  }
}
