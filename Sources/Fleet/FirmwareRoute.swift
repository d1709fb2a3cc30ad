import Profiles

/// What a firmware campaign installs on one device: the version it must report afterwards, the updater
/// that carries that package's images, and the package's SHA-256 for the report.
public struct FirmwareInstall: Sendable {
  public var version: FirmwareVersion
  public var updater: any FirmwareUpdater
  /// Lower-case hex; nil when the campaign's package came from a file nobody hashed for it.
  public var packageSHA256: String?

  public init(version: FirmwareVersion, updater: any FirmwareUpdater, packageSHA256: String? = nil) {
    self.version = version
    self.updater = updater
    self.packageSHA256 = packageSHA256
  }
}

/// Picks each device's package once the campaign knows what the device is: one package for every device
/// (`dfu update --package`), or the catalogue's newest release for its model and hardware version
/// (`dfu update --firmware`, resolved and verified before the campaign starts).
public protocol FirmwareRoute: Sendable {
  /// `identity` is what the device reported now, or nil when it could not be read (a device the journal
  /// left mid-transfer may be waiting in its bootloader).
  func route(address: String, identity: DeviceIdentity?) -> FirmwareRouteDecision
}

public enum FirmwareRouteDecision: Sendable {
  case install(FirmwareInstall)
  /// Nothing to do for this device (up to date, no release for it): the reason is its report line.
  case skip(String)
  /// This device cannot be updated by this campaign (a permanent failure).
  case fail(String)
}

/// One package for every selected device; a device already at the package's version or newer is skipped.
public struct SinglePackageRoute: FirmwareRoute {
  public var install: FirmwareInstall

  public init(_ install: FirmwareInstall) { self.install = install }

  public func route(address: String, identity: DeviceIdentity?) -> FirmwareRouteDecision {
    if let firmware = identity?.firmware, firmware >= install.version {
      return .skip("firmware \(firmware) is already at or above \(install.version)")
    }
    return .install(install)
  }
}

/// Packages resolved per (model, hardware version) before the campaign, from a catalogue: a device gets
/// its pair's decision; a device whose identity cannot be read now falls back on what the survey before
/// the campaign read from it.
public struct CatalogueRoute: FirmwareRoute {
  public struct Key: Sendable, Hashable {
    public var model: String
    public var hardware: String
    public init(model: String, hardware: String) {
      self.model = model
      self.hardware = hardware
    }
  }

  /// What a (model, hardware version) pair gets.
  public enum Plan: Sendable {
    /// The package, downloaded and verified before the campaign.
    case install(FirmwareInstall)
    /// The release the catalogue offers, or the one asked for (`asked`); nothing was fetched, as every
    /// surveyed device already had it or a newer one (a device is never downgraded).
    case current(FirmwareVersion, asked: Bool = false)
    /// No release for the pair; the reason is its devices' report line.
    case none(String)
  }

  public var plans: [Key: Plan]
  /// What each device reported in the survey, by address.
  public var surveyed: [String: DeviceIdentity]

  public init(plans: [Key: Plan], surveyed: [String: DeviceIdentity]) {
    self.plans = plans
    self.surveyed = surveyed
  }

  public func route(address: String, identity: DeviceIdentity?) -> FirmwareRouteDecision {
    guard let id = identity ?? surveyed[address] else {
      return .fail("could not read its model, hardware and firmware versions, so no package was chosen for it")
    }
    guard let model = id.model, let hardware = id.hardware else {
      return .skip("it did not report its model and hardware version (model, hver)")
    }
    guard let plan = plans[Key(model: model, hardware: hardware)] else {
      return .fail("\(model) hardware \(hardware) was not seen before the campaign, so no package was resolved for it")
    }
    let offered: FirmwareVersion
    var asked = false
    switch plan {
    case .none(let reason): return .skip(reason)
    case .install(let install):
      guard let firmware = id.firmware, firmware >= install.version else { return .install(install) }
      offered = install.version
    case .current(let version, let wasAsked):
      guard let firmware = id.firmware, firmware >= version else {
        return .fail(
          "it now reports \(id.firmware?.description ?? "no version"), older than \(version), which was not fetched")
      }
      (offered, asked) = (version, wasAsked)
    }
    if asked {
      return .skip(
        "up to date (runs \(id.firmware!), not older than the V\(offered) asked for; a device is never downgraded)")
    }
    return .skip("up to date (runs \(id.firmware!), the catalogue offers \(offered))")
  }
}
