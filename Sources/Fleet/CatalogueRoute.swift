import Profiles

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
