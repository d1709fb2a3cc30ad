import Firmware
import Fleet
import Foundation
import NordicDFU
import Profiles
import Synchronization
import Testing

@testable import BeaconProvisionCLI
@testable import CampaignPipeline

/// `CatalogueTakeoverRoute` over a real catalogue folder and firmware cache (`ConsecutiveAddressDFUTests.catalogue`:
/// the example plus KBN52_SIM V1.0 → V3.20), with no survey at all: what a gateway has for the devices it takes
/// over from a dead one. The several-gateways run is `SeveralGatewaysCatalogueTests`.
@Suite(.isolatedState, .timeLimit(.minutes(1))) struct CatalogueTakeoverRouteTests {
  /// Never called: the route only needs the planner's catalogue and package machinery.
  struct NoDevices: FirmwareUpdater {
    func identify(_ target: Target) async throws -> DeviceIdentity { throw CampaignFailure("not here") }
    func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
      -> FirmwareTransferResult
    { throw CampaignFailure("not here") }
  }

  final class Events: Sendable {
    let all = Mutex<[PipelineEvent]>([])
    var catalogueReads: Int { all.withLock { $0.filter { if case .catalogueRead = $0 { true } else { false } }.count } }
  }

  static let legacy = DeviceIdentity(model: "KBN52_SIM", hardware: "V1.0", firmware: FirmwareVersion("3.12"))

  /// A route that has surveyed nothing (its pairs' plans `plans`), and `recall` for the registry.
  func route(
    _ root: String, events: Events, plans: [CatalogueRoute.Key: CatalogueRoute.Plan] = [:],
    recall: @escaping @Sendable (String) async -> DeviceIdentity? = { _ in nil }
  ) throws -> (CatalogueTakeoverRoute, LateCataloguePlans) {
    let folder = try ConsecutiveAddressDFUTests.catalogue(root: root)
    let location = try CatalogueLocation(base: "file://" + folder)
    let options = try FirmwareSourceOptions.parse(["--firmware-dir", root + "/cache"])
    let cache = try options.cache(location: location, expectations: DeviceExpectations())
    var planner = CatalogueCampaignPlanner(
      cache: cache, location: location, wanted: .latest, identifier: NoDevices(), expectations: DeviceExpectations(),
      updater: { _ in NoDevices() }, plan: FirmwarePlan(version: FirmwareVersion("0")!), batteries: [:], parallel: 1,
      emit: { event in events.all.withLock { $0.append(event) } })
    planner.recall = recall
    let late = LateCataloguePlans(planner: planner)
    let route = CatalogueTakeoverRoute(
      base: CatalogueRoute(plans: plans, surveyed: [:]), late: late, recall: planner.recallIdentity)
    return (route, late)
  }

  func installs(_ decision: FirmwareRouteDecision) -> String? {
    if case .install(let install) = decision { return install.version.description }
    return nil
  }

  @Test func aPairNeverSurveyedIsResolvedOnceWhenItsFirstDeviceComes() async throws {
    let root = NSTemporaryDirectory() + "takeover-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let events = Events()
    let (route, late) = try route(root, events: events)
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:00", identity: Self.legacy)) == "3.20")
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:02", identity: Self.legacy)) == "3.20")
    #expect(events.catalogueReads == 1, "the pair's catalogue read once for both devices")
    #expect(await late.packages().map(\.version) == ["V3.20"], "listed for the report")
  }

  /// A device left in its bootloader is known by what the registry recorded of it; one the registry knows only
  /// from sightings (no model and hardware version) fails as one it does not know at all — not skipped, which would
  /// let the run end "all updated or skipped" with the device in its bootloader.
  @Test func aDeviceLeftInItsBootloaderIsKnownFromTheRegistry() async throws {
    let root = NSTemporaryDirectory() + "takeover-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let sighted = DeviceIdentity(model: "KKM model 12", hardware: nil, firmware: nil)
    let (route, _) = try route(root, events: Events()) { $0 == "DD:35:2C:07:E1:00" ? Self.legacy : sighted }
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:00", identity: nil)) == "3.20")
    guard case .fail(let reason) = await route.route(address: "DD:35:2C:07:E1:02", identity: nil) else {
      Issue.record("a device the registry knows only from sightings was not failed")
      return
    }
    #expect(reason.contains("could not read its model"), "\(reason)")
  }

  /// A pair this gateway surveyed and found current (nothing fetched) still gets its package for an older device it
  /// takes over.
  @Test func anOlderDeviceOfAPairSurveyedCurrentGetsThePackage() async throws {
    let root = NSTemporaryDirectory() + "takeover-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let key = CatalogueRoute.Key(model: "KBN52_SIM", hardware: "V1.0")
    let (route, _) = try route(root, events: Events(), plans: [key: .current(FirmwareVersion("3.20")!)])
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:00", identity: Self.legacy)) == "3.20")
  }

  /// A device without a firmware version does not choose the pair's release for the others; and a package that
  /// cannot be had is a failure for now, not kept: once the file is back, the next device gets it.
  @Test func neitherAVersionlessDeviceNorAMissingPackageDecidesForThePair() async throws {
    let root = NSTemporaryDirectory() + "takeover-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let (route, _) = try route(root, events: Events())
    var versionless = Self.legacy
    versionless.firmware = nil
    guard case .retryLater = await route.route(address: "DD:35:2C:07:E1:00", identity: versionless) else {
      Issue.record("a versionless device resolved its pair")
      return
    }
    let package = root + "/catalogue/KBN52_SIM_V320.zip"
    try FileManager.default.moveItem(atPath: package, toPath: package + ".away")
    guard case .retryLater(let reason) = await route.route(address: "DD:35:2C:07:E1:02", identity: Self.legacy) else {
      Issue.record("a missing package was not a failure for now")
      return
    }
    #expect(reason.hasPrefix("its package could not be had: "), "\(reason)")
    try FileManager.default.moveItem(atPath: package + ".away", toPath: package)
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:02", identity: Self.legacy)) == "3.20")
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:00", identity: versionless)) == "3.20")
  }

  /// A pair's first device already current makes a plan with nothing fetched; an older device of the pair after
  /// it still gets the package.
  @Test func anOlderDeviceAfterACurrentOneOfItsPairGetsThePackage() async throws {
    let root = NSTemporaryDirectory() + "takeover-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let (route, _) = try route(root, events: Events())
    var current = Self.legacy
    current.firmware = FirmwareVersion("3.20")
    guard case .skip = await route.route(address: "DD:35:2C:07:E1:00", identity: current) else {
      Issue.record("a current device was not skipped")
      return
    }
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:02", identity: Self.legacy)) == "3.20")
  }
}
