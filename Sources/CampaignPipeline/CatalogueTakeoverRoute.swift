import Firmware
import Fleet
import Foundation
import Profiles

/// A catalogue campaign's route (`CatalogueRoute`, resolved before the campaign from the survey) for devices the
/// survey did not read, or read none like. On a shared run a gateway's survey leaves out the devices the
/// nearest-gateway rule gives another live gateway (`FirmwareCampaignPlan.surveyTargets`); when that gateway dies,
/// this one takes them over once their leases run out. Such a device may be of a model, or a hardware version,
/// this gateway never surveyed, so no package was resolved for it; older than every device of its pair that was
/// surveyed, so none was fetched; or left mid-transfer, so its application does not answer at all. (On one
/// gateway, a device the survey could not reach for a moment is the same case.)
///
/// So a device whose identity is not known from its visit or the survey is recalled from the fleet registry —
/// shared with the other gateways on a shared journal: the dead gateway's visit recorded what it read before the
/// jump — when the registry knows its model and hardware version; else it fails as before ("could not read its
/// model…"). And a pair with no plan, or whose plan fetched nothing while this device is older, gets its plan
/// when such a device comes (`LateCataloguePlans`: the model's catalogue read, its release chosen, its package
/// fetched, verified and checked as before the campaign), before that device goes to its bootloader. The rule
/// "every package in hand before any device enters its bootloader" holds device by device: a package that cannot
/// be had this time fails the device that needs it as a transient failure (retried as the campaign retries), not
/// the run.
struct CatalogueTakeoverRoute: FirmwareRoute {
  var base: CatalogueRoute
  let late: LateCataloguePlans
  /// What the fleet registry knows of a device that a package can be chosen by
  /// (`CatalogueCampaignPlanner.recallIdentity`; nil: not that much, or the registry cannot be read).
  var recall: @Sendable (String) async -> DeviceIdentity?

  func route(address: String, identity: DeviceIdentity?) async -> FirmwareRouteDecision {
    var known = identity ?? base.surveyed[address]
    if known == nil { known = await recall(address) }
    guard let device = known, let model = device.model, let hardware = device.hardware else {
      return base.route(address: address, identity: known)
    }
    let key = CatalogueRoute.Key(model: model, hardware: hardware)
    switch base.plans[key] {
    case nil: break
    case .current(let version, _)? where device.firmware.map { $0 < version } ?? false: break
    default: return base.route(address: address, identity: device)
    }
    var route = base
    switch await late.plan(for: key, device: device) {
    case .success(let plan?): route.plans[key] = plan
    case .success(nil): return .skip("the \(model) catalogue offers nothing newer for hardware \(hardware)")
    case .failure(let failure): return .retryLater(failure.message)
    }
    return route.route(address: address, identity: device)
  }
}

/// The plans `CatalogueTakeoverRoute` resolves during the campaign, one per (model, hardware) pair, shared by its
/// devices. Only a device whose firmware version is known resolves one (the release is chosen against it); a plan
/// made from a device already current (`current`) is made again for a later device that is older, so that one
/// gets the package rather than "older than the release, which was not fetched". A failure is not kept: the next
/// device of the pair, or the next attempt, tries again (two devices of a pair may resolve it at once; the
/// firmware cache's lock keeps their fetches apart).
actor LateCataloguePlans {
  typealias Outcome = Result<CatalogueRoute.Plan?, CampaignFailure>
  private let planner: CatalogueCampaignPlanner
  private var plans: [CatalogueRoute.Key: CatalogueRoute.Plan?] = [:]
  /// The packages fetched or taken from the cache so far, by where the bytes came from.
  private var sources: [String: (version: FirmwareVersion, sha256: String)] = [:]

  init(planner: CatalogueCampaignPlanner) { self.planner = planner }

  func plan(for key: CatalogueRoute.Key, device: DeviceIdentity) async -> Outcome {
    if let made = plans[key] {
      guard case .current(let version, _)? = made, let firmware = device.firmware, firmware < version else {
        return .success(made)
      }
    }
    guard device.firmware != nil else {
      return .failure(
        CampaignFailure(
          "it did not report its firmware version (ver), and no device of \(key.model) hardware \(key.hardware) "
            + "read before it gave one to choose a release against"))
    }
    let (outcome, fetched) = await Self.resolve(key, device: device, planner: planner)
    if case .success(let plan) = outcome { plans[key] = plan }
    sources.merge(fetched) { _, new in new }
    return outcome
  }

  /// The packages resolved so far, for the campaign's report.
  func packages() -> [ResolvedPackage] {
    sources.map { ResolvedPackage(url: $0.key, version: "V\($0.value.version)", sha256: $0.value.sha256) }
  }

  private static func resolve(_ key: CatalogueRoute.Key, device: DeviceIdentity, planner: CatalogueCampaignPlanner)
    async -> (outcome: Outcome, fetched: [String: (version: FirmwareVersion, sha256: String)])
  {
    var fetched = CatalogueCampaignPlanner.FetchedPackages()
    do {
      let snapshot = try await planner.cache.catalogue(model: key.model, location: planner.location)
      planner.emit(.catalogueRead(url: snapshot.url, origin: snapshot.origin))
      let plan = try await planner.plan(key, devices: [device], catalogue: snapshot.catalogue, fetched: &fetched)
      return (.success(plan), fetched.sources)
    } catch let failure as CampaignFailure {
      // Said before the campaign as "no device was updated: …"; here it is this device's failure alone.
      let reason = failure.message.replacingOccurrences(of: "no device was updated: ", with: "")
      return (.failure(CampaignFailure("its package could not be had: \(reason)")), [:])
    } catch {
      return (.failure(CampaignFailure("the \(key.model) catalogue could not be read: \(error)")), [:])
    }
  }
}
