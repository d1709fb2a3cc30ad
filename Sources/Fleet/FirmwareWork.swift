import BeaconCore
import Profiles
import Synchronization

/// What a device says it is, read over its configuration link before and after an update
/// (docs/protocols/kbeacon.md §6.3 `model`, `hver`, `ver`).
public struct DeviceIdentity: Sendable, Hashable {
  public var model: String?
  public var hardware: String?
  public var firmware: FirmwareVersion?

  public init(model: String?, hardware: String?, firmware: FirmwareVersion?) {
    self.model = model
    self.hardware = hardware
    self.firmware = firmware
  }
}

/// Which devices a campaign is for, and how careful to be.
public struct FirmwarePlan: Sendable, Hashable {
  /// The version a single-package campaign installs (devices at it or newer are skipped); a catalogue
  /// campaign's versions come from its `FirmwareRoute`.
  public var version: FirmwareVersion
  /// Globs on the device's `model`; nil = any.
  public var models: [String]?
  /// The device's `hver` must equal this; nil = any.
  public var hardware: String?
  /// Skip devices whose advertised battery is below this percentage (nil: no floor).
  public var minimumBattery: Int?

  public init(version: FirmwareVersion, models: [String]? = nil, hardware: String? = nil, minimumBattery: Int? = 30) {
    self.version = version
    self.models = models
    self.hardware = hardware
    self.minimumBattery = minimumBattery
  }
}

/// What a firmware update did, for the campaign report.
public struct FirmwareUpdateReport: Sendable, Hashable {
  public var from: FirmwareVersion?
  public var to: FirmwareVersion
  /// The package's SHA-256 (lower-case hex), when known.
  public var packageSHA256: String?
  /// The firmware bytes this visit delivered (`FirmwareTransferResult.bytesDelivered`; the images' size where the
  /// updater does not count): a resume sends only what the bootloader lacked, and `bytesPerSecond` is its own.
  public var bytes: Int
  /// The size of the images installed, when it differs from `bytes` (a resume).
  public var imageBytes: Int? = nil
  public var seconds: Double
  /// Where the bootloader answered, when known.
  public var transfer = FirmwareTransferResult()
  public var bytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds : 0 }
}

/// One device's DFU visit on the shared `Campaign` scheduler: battery floor from its advertisements, then
/// identify (model, hardware), let the route pick its package (or skip it: already current, nothing for
/// it), transfer with progress, identify again and check the new version. A device the journal left mid-transfer goes straight back to the transfer, since
/// it may now be waiting in its bootloader rather than running its application. From identify to the
/// version read back, the device holds its address in `neighbourhood`: no device one address above or
/// below is visited meanwhile (its application would share an address with this one's bootloader). A visit
/// that fails between the jump and its application answering again keeps the device above out for
/// `bootloaderQuarantine` more (`AddressNeighbourhood`).
public struct FirmwareWork: CampaignWork {
  public var plan: FirmwarePlan
  /// Reads who a device is (and, for a single-package campaign, updates it).
  public var updater: any FirmwareUpdater
  /// Which package each device gets.
  public var route: any FirmwareRoute
  /// Battery percentages read from the scan's advertisements, by address.
  public var batteries: [String: Int]
  public var reports: FirmwareReports
  /// Where each identity read (before and after the update) is recorded, best effort (`RegistryRecorder`:
  /// a registry failure never fails a device), if anywhere.
  public var registry: RegistryRecorder? = nil
  /// The addresses of the devices being visited now, shared by every attempt of the campaign.
  public var neighbourhood = AddressNeighbourhood()
  /// How long the device above stays out after a visit failed past the jump (`AddressNeighbourhood`),
  /// or nil for not at all (reconcile, whose ledger defers a shadowed neighbour to a later pass instead).
  /// [I] 130 s: Nordic's SDK bootloaders give up after 120 s without a connection or a write, and 10 s more
  /// for the last activity's own time (as reconcile's `--bootloader-timeout`).
  public var bootloaderQuarantine: Duration? = Self.defaultBootloaderQuarantine
  public static let defaultBootloaderQuarantine: Duration = .seconds(130)
  /// Devices the campaign's scan heard only as a bootloader of ours, each taken by its first visit.
  public var waitingInBootloader = BootloaderWaitingDevices()
  /// Each device's journal row as it was when it last showed a transfer begun (`BegunTransfers`), for
  /// `installedEarlier`.
  let begun = BegunTransfers()
  let clock = ContinuousClock()

  public init(
    plan: FirmwarePlan, updater: any FirmwareUpdater, batteries: [String: Int],
    reports: FirmwareReports = FirmwareReports()
  ) {
    self.init(
      plan: plan, identifier: updater,
      route: SinglePackageRoute(FirmwareInstall(version: plan.version, updater: updater)),
      batteries: batteries, reports: reports)
  }

  /// A campaign whose packages `route` chooses per device; `identifier` reads each device's identity.
  public init(
    plan: FirmwarePlan, identifier: any FirmwareUpdater, route: any FirmwareRoute, batteries: [String: Int],
    reports: FirmwareReports = FirmwareReports()
  ) {
    self.plan = plan
    self.updater = identifier
    self.route = route
    self.batteries = batteries
    self.reports = reports
  }

  public func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome {
    let address = target.address.description
    let previous = try await context.journal.device(run: context.run, address: address)
    begun.note(previous)
    let interrupted = previous?.step == VisitStep.transferring.rawValue
    // A device left mid-transfer is waiting in its bootloader, which advertises no battery: finishing it
    // is safer than leaving it there, so the floor applies to new transfers only.
    if let floor = plan.minimumBattery, !interrupted {
      guard let battery = batteries[address] else {
        return .skipped("battery level unknown (not in its advertisements); use --min-battery 0 to update it anyway")
      }
      if battery < floor { return .skipped("battery \(battery)% is below the floor of \(floor)%") }
    }
    if let block = await neighbourhood.enterAtOnce(target.address) {
      let neighbourhood = neighbourhood
      let admitted = Mutex(false)
      let goOn = await context.waitOffLink(address, reason: block.description) { reasonChanged in
        let entered = await neighbourhood.enter(target.address) { reasonChanged($0.description) }
        admitted.withLock { $0 = entered }
        return entered
      }
      guard goOn else {
        // Admitted just as the campaign stopped: the hold goes (a wait that ended unadmitted holds nothing,
        // and a quarantine of the device's own stays).
        if admitted.withLock({ $0 }) { await neighbourhood.leave(target.address) }
        return .pending
      }
    }
    // Past the `transferring` record, until its application answers, the device may be in its bootloader
    // (at address + 1) when the visit fails: the device above stays out for the quarantine.
    let mayBeInBootloader = Mutex(interrupted)
    do {
      let outcome = try await visit(
        target, attempt: attempt, context: context, previous: previous, interrupted: interrupted,
        inBootloader: { now in mayBeInBootloader.withLock { $0 = now } })
      await neighbourhood.leave(target.address)
      return outcome
    } catch {
      let quarantine = mayBeInBootloader.withLock { $0 } ? bootloaderQuarantine : nil
      await neighbourhood.leave(target.address, quarantine: quarantine)
      throw error
    }
  }

  /// Ctrl-C: devices waiting for a neighbour's address stay pending (`Campaign.requestStop`).
  public func stopRequested() async { await neighbourhood.stopWaiting() }

  /// The visit proper, while the device holds its address in `neighbourhood`.
  func visit(
    _ target: Target, attempt: Int, context: CampaignContext, previous: JournalDevice?, interrupted: Bool,
    inBootloader: @Sendable (Bool) -> Void
  ) async throws -> DeviceOutcome {
    let address = target.address.description
    var before: DeviceIdentity? = nil
    // A device left mid-transfer keeps that step in the journal until its application answers or its
    // transfer starts again: a visit that fails before then leaves it known as perhaps in its bootloader (for
    // the resume after, and for the quarantine of the device above).
    // Likewise a device whose new version an earlier visit did not manage to read back stays `verifying` (with
    // its `ver` change), so that any later visit — another gateway's, a resumed run's — reports it updated.
    let readBackPending = begun.row(previous)?.step == VisitStep.verifying.rawValue
    try await context.step(
      address, .connecting, attempt: attempt,
      recordedAs: interrupted ? .transferring : readBackPending ? .verifying : nil)
    let heardOnlyAsBootloader = interrupted && waitingInBootloader.take(address)
    do {
      if !heardOnlyAsBootloader {
        let identity = try await updater.identify(target)
        before = identity
        await registry?.identity(address: address, identity)
      }
    } catch  where interrupted {
      // Mid-transfer last time: the application may be gone until the bootloader finishes.
    }
    if interrupted, before != nil {
      // Its application answered: it is not in its bootloader after all.
      try await context.journal.record(
        run: context.run, address: address, state: .working, step: VisitStep.connecting.rawValue)
    }
    if let before {
      if let reason = reject(before) { return .skipped(reason) }
      if let outcome = await installedEarlier(address, previous: previous, now: before) { return outcome }
    }
    let install: FirmwareInstall
    switch await route.route(address: address, identity: before) {
    case .install(let chosen): install = chosen
    case .skip(let reason): return .skipped(reason)
    case .fail(let reason): throw NoPackage(reason: reason)
    case .retryLater(let reason): throw NoPackage(reason: reason, failureKind: .transient)
    }

    // The version it came from survives a retry or resume that finds the device in its bootloader.
    let from = before?.firmware ?? previous?.changeList.first.flatMap { $0.old.flatMap(FirmwareVersion.init) }
    try await context.journal.record(
      run: context.run, address: address, state: .working,
      changes: [JournalChange(scope: "device", key: "ver", old: from?.description, new: install.version.description)])
    try await context.step(address, .transferring, attempt: attempt)
    inBootloader(true)
    let start = clock.now
    let totalBytes = Mutex(0)
    let progress: @Sendable (Int, Int) -> Void = { done, total in
      totalBytes.withLock { $0 = total }
      let seconds = (clock.now - start).seconds
      context.progress(address, done: done, total: total, bytesPerSecond: seconds > 0 ? Double(done) / seconds : 0)
    }
    let transfer =
      try await heardOnlyAsBootloader
      ? install.updater.updateWaitingInBootloader(target, progress: progress)
      : install.updater.update(target, progress: progress)
    let seconds = (clock.now - start).seconds
    let imageBytes = totalBytes.withLock { $0 }
    let delivered = transfer.bytesDelivered ?? imageBytes
    let report = FirmwareUpdateReport(
      from: from, to: install.version, packageSHA256: install.packageSHA256, bytes: delivered,
      imageBytes: delivered == imageBytes ? nil : imageBytes, seconds: seconds, transfer: transfer)
    await reports.transferred(address, report)

    try await context.step(address, .verifying, attempt: attempt)
    let after: DeviceIdentity
    do {
      guard let read = try await identifyAfterTransfer(target, context: context) else {
        // Stopped while waiting to look again: left pending at `verifying`, for `--resume` to report updated.
        inBootloader(false)
        return .pending
      }
      after = read
    } catch let shadow as BootloaderAtAddress {
      // The transfer finished, so the bootloader answering is a neighbour's: the device above need not wait.
      inBootloader(false)
      throw shadow
    }
    inBootloader(false)  // its application answered: a failure from here leaves no bootloader behind
    await registry?.identity(address: address, after)
    guard after.firmware == install.version else {
      throw VersionMismatch(expected: install.version, found: after.firmware)
    }
    await reports.add(address, report)
    return .updated([
      ConfigChange(
        scope: .common, key: "ver", old: from.map { .text($0.description) }, new: .text(install.version.description))
    ])
  }

  /// Why this device is not selected (model and hardware filters), or nil; versions are the route's.
  public func reject(_ id: DeviceIdentity) -> String? {
    if let models = plan.models, !models.contains(where: { Glob($0).matches(id.model ?? "") }) {
      return "model \(id.model ?? "(unknown)") is not \(models.joined(separator: " or "))"
    }
    if let hardware = plan.hardware, id.hardware != hardware {
      return "hardware version \(id.hardware ?? "(unknown)") is not \(hardware)"
    }
    return nil
  }

  struct NoPackage: Error, ClassifiedFailure, CustomStringConvertible {
    var reason: String
    var failureKind: FailureKind = .permanent
    var description: String { reason }
  }

  struct VersionMismatch: Error, ClassifiedFailure, CustomStringConvertible {
    var expected: FirmwareVersion
    var found: FirmwareVersion?
    var failureKind: FailureKind { .permanent }
    var description: String {
      "after the update the device reports firmware \(found?.description ?? "(unknown)"), expected \(expected)"
    }
  }
}

/// Per-device results of a firmware campaign (who went from which version to which, how long, how fast).
public actor FirmwareReports {
  public private(set) var byAddress: [String: FirmwareUpdateReport] = [:]
  /// Transfers that finished and whose version check has not passed yet (a retry may still confirm them).
  private var unconfirmed: [String: FirmwareUpdateReport] = [:]
  public init() {}
  func add(_ address: String, _ report: FirmwareUpdateReport) {
    byAddress[address] = report
    unconfirmed[address] = nil
  }
  func transferred(_ address: String, _ report: FirmwareUpdateReport) { unconfirmed[address] = report }
  func unconfirmed(_ address: String) -> FirmwareUpdateReport? { unconfirmed[address] }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
