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
/// (`dfu update --firmware`, resolved and verified before the campaign starts; for a device taken over from
/// another gateway, of a pair this one never surveyed, during it — hence `async`).
public protocol FirmwareRoute: Sendable {
  /// `identity` is what the device reported now, or nil when it could not be read (a device the journal
  /// left mid-transfer may be waiting in its bootloader).
  func route(address: String, identity: DeviceIdentity?) async -> FirmwareRouteDecision
}

public enum FirmwareRouteDecision: Sendable {
  case install(FirmwareInstall)
  /// Nothing to do for this device (up to date, no release for it): the reason is its report line.
  case skip(String)
  /// This device cannot be updated by this campaign (a permanent failure).
  case fail(String)
  /// This device's package could not be had this time (a catalogue or package fetched during the campaign):
  /// a transient failure, tried again as the campaign retries.
  case retryLater(String)
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
