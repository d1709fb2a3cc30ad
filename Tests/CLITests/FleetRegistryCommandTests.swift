import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// The commands keep the fleet registry (what `audit` reports) in the state directory's journal file: `apply` records
/// its scan and each configuration it reads back, `plan` reads again, `scan` records every device heard —
/// and a state directory that cannot be opened costs `scan` a warning, not its output.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct FleetRegistryCommandTests {
  /// Two demo KBeacon Pros and a legacy KBeacon (whose model key is `modle`).
  static let targets = ["BC:57:29:00:12:01", "DD:34:02:06:D1:01", "DD:34:02:06:D1:02"]

  static func profile() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString).json").path
    let addresses = targets.map { "\"\($0)\"" }.joined(separator: ", ")
    try #"{"version": 1, "select": {"addresses": [\#(addresses)]}, "desired": {"name": "registered"}}"#
      .write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func campaign(_ profile: String, dryRun: Bool) async throws -> CampaignSummary {
    let options = try ProvisionOptions.parse([profile, "--adapter", "sim", "--scan", "3", "--retry-delay", "0"])
    return try await ApplyInvocation(options: options, dryRun: dryRun, resume: nil, pace: .unpaced).run().summary
  }

  static func registry(_ stateDirectory: String) throws -> FleetRegistry {
    FleetRegistry(journal: try Journal(path: CampaignResources.journalPath(stateDirectory)))
  }

  @Test func applyLeavesEachSelectedDeviceWithModelFirmwareAndConfigurationHash() async throws {
    let profile = try Self.profile()
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let summary = try await Self.campaign(profile, dryRun: false)
    #expect(summary.count(.verified) == Self.targets.count)

    let registry = try Self.registry(StateDirectory.resolve(nil))
    let devices = try await registry.devices()
    // The scan's sightings: the whole demo fleet, selected or not.
    #expect(devices.map(\.address) == DemoFleet.fleet.devices.map(\.address.description).sorted())
    let expected = [
      "BC:57:29:00:12:01": ("KBN52_SIM", "3.12"), "DD:34:02:06:D1:01": ("KBPro_SIM", "5.11"),
      "DD:34:02:06:D1:02": ("KBPro_SIM", "5.12"),
    ]
    var hashes: [String: String] = [:]
    for device in devices {
      guard let (model, firmware) = expected[device.address] else {
        #expect(device.configurationHash == nil && device.lastApply == nil, "\(device.address) was not selected")
        continue
      }
      #expect(
        device.model == model && device.firmwareVersion == firmware && device.hardwareVersion == "V1.0",
        "\(device.address)")
      #expect(device.name == "registered" && !device.frames.isEmpty && device.lastRSSI != nil, "\(device.address)")
      #expect(device.lastApply?.run == summary.run && device.lastApply?.outcome == "verified", "\(device.address)")
      let hash = try #require(device.configurationHash, "\(device.address) has no configuration hash")
      hashes[device.address] = hash
    }
    #expect(hashes.count == Self.targets.count)

    // A plan reads the same sections again: the configuration apply read back, so the same hash.
    let plan = try await Self.campaign(profile, dryRun: true)
    #expect(plan.count(.compliant) == Self.targets.count)
    for address in Self.targets {
      let device = try #require(try await registry.device(address))
      #expect(device.configurationHash == hashes[address] && device.lastApply?.run == summary.run, "\(address)")
    }
  }

  /// Runs the built CLI's `scan --json` with this `--state-dir`; returns its exit status, output and errors.
  static func scan(stateDirectory: String) async throws -> (status: Int32, output: String, errors: String) {
    try await CLIProcess.run(["scan", "--adapter", "sim", "--duration", "2", "--json", "--state-dir", stateDirectory])
  }

  @Test func scanRecordsEveryDeviceItHeard() async throws {
    let state = StateDirectory.resolve(nil)
    let result = try await Self.scan(stateDirectory: state)
    #expect(result.status == 0, "\(result.errors)")
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(result.output.utf8))
    let devices = try await Self.registry(state).devices()
    #expect(devices.map(\.address) == records.map(\.address.description).sorted())
    let pro = try #require(devices.first { $0.address == "DD:34:02:06:D1:01" })
    #expect(pro.firmwareVersion == "5.11" && pro.batteryPercent == 99 && pro.batteryMillivolts == 3020)
    #expect(pro.frames == ["kSensor", "kkmSystem", "kkmScanResponse"] && pro.configurationHash == nil)
    #expect(try await Self.registry(state).history(pro.address).count == 1)
  }

  @Test func scanWithAStateDirectoryItCannotOpenStillPrintsItsResults() async throws {
    let folder = StateDirectory.resolve(nil)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let notAFolder = folder + "/plain-file"
    try Data().write(to: URL(fileURLWithPath: notAFolder))
    let result = try await Self.scan(stateDirectory: notAFolder)
    #expect(result.status == 0)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(result.output.utf8))
    #expect(records.count == DemoFleet.fleet.devices.count)
    #expect(
      result.errors.contains("warning beacon-provision.registry: cannot open the fleet registry in \(notAFolder)"))
  }
}

extension FleetRegistryCommandTests {
  @Test func dfuUpdateLeavesTheVerifiedVersionAndItsRun() async throws {
    let fleet = try DFUFleetCampaignTests.fleet(count: 1)
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let address = DFUFleetCampaignTests.address(0)
    let result = try await DFUFleetCampaignTests.update(
      ["--package", package, "--adapter", "sim:\(fleet)"], central: try DFUFleetCampaignTests.central(fleet))
    #expect(result.summary.outcomes[address]?.state == .verified)

    let device = try #require(try await Self.registry(StateDirectory.resolve(nil)).device(address))
    // The scan heard 5.22 in the System frame; the identity read after the update says 5.30.
    #expect(device.firmwareVersion == "5.30" && device.model == "KBPro_SIM" && device.hardwareVersion == "V1.0")
    #expect(
      device.batteryPercent == 90 && device.lastDFU?.run == result.summary.run && device.lastDFU?.outcome == "verified")
    #expect(device.lastApply == nil && device.configurationHash == nil)
  }
}
