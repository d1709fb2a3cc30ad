import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import NordicDFU
import Profiles
import Simulator
import Synchronization

/// A simulated fleet, an in-memory journal and a recording observer for running `CampaignPipeline`
/// directly (no command line): the simulator's in-process adapter, unpaced.
struct PipelineFixture: Sendable {
  /// Addresses 4 apart (a DFU bootloader at +1 never lands on a neighbour).
  static func address(_ i: Int) -> String { String(format: "DD:34:02:06:E0:%02X", i * 4) }

  let central: SimulatedCentral
  let journal: Journal
  let events = EventLog()

  /// `count` KBeacon Pros at firmware 5.22 with the factory password.
  init(count: Int) throws {
    let devices = (0..<count).map { i in
      #"{"address": "\#(Self.address(i))", "kind": "kbeaconPro", "name": "KBPro_P\#(i)", "intervalMs": 300, "#
        + #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}}"#
    }
    let fleet = try SimulatedFleet.decode(
      Data(#"{"version": 1, "devices": [\#(devices.joined(separator: ","))]}"#.utf8))
    central = SimulatedCentral.withKBeacons(fleet: fleet, name: "sim", pace: .unpaced).0
    journal = try Journal(path: nil)
  }

  /// The pipeline on this fleet and journal, its events recorded.
  func pipeline(resume: String? = nil, parallel: Int = 2) -> CampaignPipeline {
    let resources = CampaignResources(
      journal: journal, central: central,
      registry: RegistryRecorder(registry: FleetRegistry(journal: journal), warn: { _ in }))
    return CampaignPipeline(
      settings: .init(
        parallel: parallel, attempts: 2, retryDelay: .zero, scanSeconds: 3, place: "memory", resume: resume),
      resources: { resources }, scan: Self.scan, emit: { [events] in events.append($0) })
  }

  /// The scan a campaign needs, without rendering: every report up to `seconds` on the simulator's own time
  /// line, or until every awaited device has been heard.
  static let scan: CampaignPipeline.Scanner = { central, seconds, awaited in
    let origin = ContinuousClock.now
    var session = DiscoverySession(settings: DiscoverySettings(window: .seconds(seconds)), origin: origin)
    var missing = awaited
    var end = origin + .seconds(seconds)
    for try await report in central.scan(ScanParameters(active: true)) {
      if report.timestamp >= end { break }
      _ = session.ingest(report)
      if missing.remove(report.address) != nil, missing.isEmpty { end = min(end, report.timestamp + .seconds(1)) }
    }
    _ = session.finish(at: end)
    return session.results
  }

  /// A profile selecting these devices by address and naming them `name`.
  static func profile(addresses: [String], name: String) throws -> (LoadedProfile, RunRecipe) {
    let text =
      #"{"version": 1, "select": {"addresses": [\#(addresses.map { "\"\($0)\"" }.joined(separator: ", "))]}, "#
      + #""desired": {"name": "\#(name)"}}"#
    let loaded = try LoadedProfile.load(file: "pipeline.json", read: { _ in Array(text.utf8) }, urlCheck: { _ in nil })
    return (loaded, RunRecipe("profile", content: Array(text.utf8)))
  }

  static func applyPlan(addresses: [String], name: String, dryRun: Bool = false) throws -> ProfileCampaignPlan {
    let (loaded, recipe) = try profile(addresses: addresses, name: name)
    return try ProfileCampaignPlan(
      profile: loaded, path: "pipeline.json", recipe: recipe, passwords: .init(current: Secret("0000000000000000")),
      resolver: DesiredResolver(urlCheck: { _ in nil }), dryRun: dryRun)
  }

  /// A `--package` plan: an unsigned application package with `fw_version` `version` (hw_version 52,
  /// SoftDevice S140 7.0.1, what the simulated bootloader has) written as a real .zip.
  static func firmwarePlan(addresses: [String], version: UInt32 = 530) throws -> (FirmwareCampaignPlan, String) {
    var state: UInt64 = 0xF1EE7
    let firmware: [UInt8] = (0..<4_000).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
    let zip = UnsignedApplicationPackage.zip(image: firmware, firmwareVersion: version)
    let path = NSTemporaryDirectory() + "pipeline-app-\(version)-\(UUID().uuidString).zip"
    try Data(zip).write(to: URL(fileURLWithPath: path))
    let expectations = DeviceExpectations(hardwareVersion: 52)
    let plan = FirmwareCampaignPlan(
      firmware: .package(
        path: path, try FirmwareCampaignPlan.SinglePackage(path: path, expectations: expectations, explicit: nil)),
      expectations: expectations, password: Secret("0000000000000000"), addresses: addresses,
      transfer: .init(objectDelay: .zero, reconnectDelay: .zero, timeout: .seconds(1)))
    return (plan, path)
  }
}

/// Every event a pipeline emitted, in order.
final class EventLog: Sendable {
  private let events = Mutex<[PipelineEvent]>([])

  func append(_ event: PipelineEvent) { events.withLock { $0.append(event) } }

  var all: [PipelineEvent] { events.withLock { $0 } }

  /// Each event's case name, the scheduler's own by theirs (`campaign.finished`), steps and progress left
  /// out (their number depends on the work).
  var shape: [String] {
    all.compactMap { event in
      switch event {
      case .campaign(let e, _):
        switch e {
        case .finished: "campaign.finished"
        case .step, .progress, .linksInUse: nil
        case .retrying: "campaign.retrying"
        case .waiting: "campaign.waiting"
        case .linkLimit: "campaign.linkLimit"
        case .linkLimitRaised: "campaign.linkLimitRaised"
        }
      default: "\(event)".prefix { $0 != "(" }.description
      }
    }
  }
}
