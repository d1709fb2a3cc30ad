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

  /// A route that has surveyed nothing, and `recall` for the registry.
  func route(
    _ root: String, events: Events, recall: @escaping @Sendable (String) async -> DeviceIdentity? = { _ in nil }
  )
    throws -> (CatalogueTakeoverRoute, LateCataloguePlans)
  {
    let folder = try ConsecutiveAddressDFUTests.catalogue(root: root)
    let location = try CatalogueLocation(base: "file://" + folder)
    let options = try FirmwareSourceOptions.parse(["--firmware-dir", root + "/cache"])
    let cache = try options.cache(location: location, expectations: DeviceExpectations())
    let planner = CatalogueCampaignPlanner(
      cache: cache, location: location, wanted: .latest, identifier: NoDevices(), expectations: DeviceExpectations(),
      updater: { _ in NoDevices() }, plan: FirmwarePlan(version: FirmwareVersion("0")!), batteries: [:], parallel: 1,
      emit: { event in events.all.withLock { $0.append(event) } })
    let late = LateCataloguePlans(planner: planner)
    return (CatalogueTakeoverRoute(base: CatalogueRoute(plans: [:], surveyed: [:]), late: late, recall: recall), late)
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

  @Test func aDeviceLeftInItsBootloaderIsKnownFromTheRegistry() async throws {
    let root = NSTemporaryDirectory() + "takeover-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    let (route, _) = try route(root, events: Events()) { $0 == "DD:35:2C:07:E1:00" ? Self.legacy : nil }
    #expect(installs(await route.route(address: "DD:35:2C:07:E1:00", identity: nil)) == "3.20")
    guard case .fail(let reason) = await route.route(address: "DD:35:2C:07:E1:02", identity: nil) else {
      Issue.record("a device neither read nor in the registry got a package")
      return
    }
    #expect(reason.contains("could not read its model"), "\(reason)")
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
