import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import NordicDFU
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// Never the wrong device: a parallel `dfu update` on devices with consecutive addresses, where each no-bond
/// bootloader comes up at its application's address + 1 — the next device's address (docs/protocols/nordic-dfu.md §2.2).
/// Every device must end at its own model's release, counted from the simulated devices themselves (their
/// `ver` and what their bootloaders activated), not from the tool's report.
@Suite(.isolatedState, .timeLimit(.minutes(10))) struct ConsecutiveAddressDFUTests {
  /// The two models and the release the catalogue offers each: KBeacon Pros (KBPro_SIM, from V5.12) get the
  /// example catalogue's V5.14; legacy KBeacons (KBN52_SIM, V3.12) get V3.20.
  static let releases = ["KBPro_SIM": "V5.14", "KBN52_SIM": "V3.20"]

  /// `count` devices at consecutive addresses `prefix:00`, `prefix:01`, …, Pros and legacy KBeacons
  /// alternating (so neighbours need different firmware); `dfu` gives device i's `dfu` section, if any.
  static func fleet(prefix: String, count: Int, dfu: (Int) -> String? = { _ in nil }) throws -> String {
    let devices = (0..<count).map { i in
      let kind =
        i % 2 == 0
        ? #""kind": "kbeaconPro", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}"#
        : #""kind": "kbeaconLegacy", "sensor": {"batteryMillivolts": 3100, "temperature": 18.5}"#
      return #"{"address": "\#(prefix):\#(String(format: "%02X", i))", \#(kind), "name": "KB_\#(i)", "intervalMs": 300"#
        + (dfu(i).map { #", "dfu": \#($0)"# } ?? "") + "}"
    }
    let path = NSTemporaryDirectory() + "consecutive-fleet-\(UUID().uuidString).json"
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// A copy of firmware/example plus a KBN52_SIM V1.0 release V3.20 (fw_version 320, a different image
  /// from the Pros' V5.14), as a catalogue folder.
  static func catalogue(root: String) throws -> String {
    let folder = root + "/catalogue"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: CatalogueFolderCampaignTests.example, toPath: folder)
    let package = try DFUFleetPackages.application(count: 6_000, version: 320)
    try FileManager.default.moveItem(atPath: package, toPath: folder + "/KBN52_SIM_V320.zip")
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/KBN52_SIM_V320.zip")))
    let json =
      #"{"V1.0": [{"appVersion": "V3.20", "appFileName": "KBN52_SIM_V320.zip", "note": "test release", "#
      + #""sha256": "\#(Hex.encode(SHA256Digest.hash(bytes)).lowercased())", "size": \#(bytes.count)}]}"#
    try json.write(toFile: folder + "/KBN52_SIM.json", atomically: true, encoding: .utf8)
    return folder
  }

  /// A simulated adapter (instant links, unpaced) for the fleet file, with its KBeacons at hand.
  static func simulation(_ fleet: String) throws -> (central: SimulatedCentral, kbeacons: KBeaconSimulation) {
    SimulatedCentral.withKBeacons(fleet: try CentralFactory.fleet(fleet), name: "sim", pace: .unpaced)
  }

  static func update(_ arguments: [String], fleet: String, central: SimulatedCentral) async throws -> CampaignResult {
    let command = try DFUUpdateCommand.parse(
      arguments + [
        "--adapter", "sim:\(fleet)", "--scan", "5", "--retry-delay", "0",
        "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "30", "--min-battery", "0",
      ])
    return try await DFUInvocation(command: command, pace: .unpaced, central: central).run()
  }

  /// What went wrong on each device, from the devices' own state: its `ver` is not its model's release, or
  /// its bootloader sessions did not activate exactly one image.
  static func mixUps(_ simulation: (central: SimulatedCentral, kbeacons: KBeaconSimulation), fleet: SimulatedFleet)
    async -> [String]
  {
    var problems: [String] = []
    var activations: [BluetoothAddress: Int] = [:]
    for session in simulation.central.bootloaders.sessions {
      activations[session.address, default: 0] += await session.target.activated.count
    }
    for device in fleet.devices {
      guard let kbeacon = simulation.kbeacons.kbeacon(device.address) else { continue }
      let model =
        await kbeacon.configuration.common.fields[device.kind == .kbeaconLegacy ? "modle" : "model"]?.stringValue ?? "?"
      let version = await kbeacon.firmwareVersion
      if version != releases[model] { problems.append("\(device.address) (\(model)) runs \(version ?? "nothing")") }
      let count = activations[device.address] ?? 0
      if count != 1 { problems.append("\(device.address) (\(model)): its bootloader activated \(count) images") }
    }
    return problems
  }

  /// 20 campaigns, each on a fresh 30-device consecutive-address fleet of two models, at `--parallel 5`:
  /// no device ends on another model's firmware or its neighbour's, none fails. (Without the bootloader
  /// name and the neighbour rule, the first campaign already sent firmware into neighbours' bootloaders.)
  /// In four groups of five campaigns that run side by side, each group with its own catalogue cache: run one
  /// after another, the twenty were the longest test of every test run (255 s under ThreadSanitizer).
  @Test(arguments: 0..<4)
  func twentyCampaignsOnThirtyConsecutiveDevicesOfTwoModelsAtParallelFive(group: Int) async throws {
    let root = NSTemporaryDirectory() + "consecutive-\(UUID().uuidString)"
    let folder = try Self.catalogue(root: root)
    defer { try? FileManager.default.removeItem(atPath: root) }
    var mixUps: [String] = []
    var failures: [String] = []
    for run in (group * 5)..<(group * 5 + 5) {
      let path = try Self.fleet(prefix: String(format: "DD:34:02:0C:%02X", run), count: 30)
      defer { try? FileManager.default.removeItem(atPath: path) }
      let simulation = try Self.simulation(path)
      let result = try await Self.update(
        ["--firmware", "latest", "--catalog", folder, "--firmware-dir", root + "/cache", "--parallel", "5"],
        fleet: path, central: simulation.central)
      failures += result.summary.outcomes.filter { $0.value.state != .verified }.map {
        "run \(run): \($0.key) \($0.value)"
      }
      mixUps += (await Self.mixUps(simulation, fleet: try CentralFactory.fleet(path))).map { "run \(run): \($0)" }
      #expect(result.summary.outcomes.count == 30)
      // every bootloader advertised the name its own device was given
      for session in simulation.central.bootloaders.sessions {
        let name = await session.bootloaderName
        #expect(BootloaderName.isName(name, of: session.address), "\(session.address)'s bootloader was named \(name)")
      }
    }
    #expect(mixUps.isEmpty, "\(mixUps.count) mix-ups: \(mixUps.prefix(10))")
    #expect(failures.isEmpty, "\(failures.count) failures: \(failures.prefix(10))")
  }

  /// Two models' catalogues name one file, each with its own hash: the legacy model's package, which the
  /// Pros' catalogue names with the Pros' V5.14 hash. The Pros' entry is checked on its own — the file is not
  /// what it says, and nothing is updated — rather than given the package fetched for the other model (a Pro
  /// was sent the legacy model's firmware).
  @Test func oneFileNamedByTwoModelsWithTwoHashesIsCheckedForEach() async throws {
    let root = NSTemporaryDirectory() + "consecutive-\(UUID().uuidString)"
    let folder = try Self.catalogue(root: root)
    let path = try Self.fleet(prefix: "DD:34:02:0E:F0", count: 2)
    defer { for p in [root, path] { try? FileManager.default.removeItem(atPath: p) } }
    try #"""
    {"V1.0": [{"appVersion": "V5.14", "appFileName": "KBN52_SIM_V320.zip", "note": "names the legacy package",
      "sha256": "5aeee5c44ffa910a3e6641526c992fcdb47a0b87a3663713a54690cf74e8f92e", "size": 4619}]}
    """#.write(toFile: folder + "/KBPro_SIM.json", atomically: true, encoding: .utf8)
    let simulation = try Self.simulation(path)
    do {
      _ = try await Self.update(
        ["--firmware", "latest", "--catalog", folder, "--firmware-dir", root + "/cache", "--parallel", "2"],
        fleet: path, central: simulation.central)
      Issue.record("the campaign ran with a package whose hash is not the catalogue's")
    } catch let failure as CLIFailure {
      #expect(failure.message.hasPrefix("no device was updated"), "\(failure.message)")
    }
    #expect(simulation.central.bootloaders.entered.isEmpty)
  }

  /// SDK 13 devices answer Set Advertisement Name "op code not supported": each bootloader keeps the
  /// default name and is reached at its address + 1, checked silent before the jump, with no neighbour in
  /// flight — on consecutive addresses of two models at `--parallel 2`.
  @Test func sdk13DevicesThatCannotNameTheirBootloaderAtParallelTwo() async throws {
    let root = NSTemporaryDirectory() + "consecutive-\(UUID().uuidString)"
    let folder = try Self.catalogue(root: root)
    let path = try Self.fleet(prefix: "DD:34:02:0D:F0", count: 10, dfu: { _ in #"{"buttonless": "sdk13"}"# })
    defer { for p in [root, path] { try? FileManager.default.removeItem(atPath: p) } }
    let simulation = try Self.simulation(path)
    let result = try await Self.update(
      ["--firmware", "latest", "--catalog", folder, "--firmware-dir", root + "/cache", "--parallel", "2"],
      fleet: path, central: simulation.central)
    #expect(result.summary.outcomes.count == 10)
    #expect(result.summary.outcomes.values.allSatisfy { $0.state == .verified }, "\(result.summary.outcomes)")
    let mixUps = await Self.mixUps(simulation, fleet: try CentralFactory.fleet(path))
    #expect(mixUps.isEmpty, "\(mixUps)")
    for session in simulation.central.bootloaders.sessions {
      #expect(await session.bootloaderName == "DfuTarg")
      #expect(await simulation.kbeacons.kbeacon(session.address)?.bootloaderName == nil)
    }
    for (address, report) in result.reports {
      let plusOne = BootloaderLocator.candidateAddresses(for: BluetoothAddress(address)!)[0]
      #expect(
        report.transfer.bootloader == plusOne && report.transfer.bootloaderType == .random
          && report.transfer.bootloaderName == nil, "\(report.transfer)")
    }
  }

  /// SDK 13 and SDK 14 devices mixed on consecutive addresses at `--parallel 3`: each kind is reached its
  /// own way (by name, or at address + 1) and every device ends at its own model's release.
  @Test func sdk13AndSdk14DevicesMixedAtParallelThree() async throws {
    let root = NSTemporaryDirectory() + "consecutive-\(UUID().uuidString)"
    let folder = try Self.catalogue(root: root)
    let sdk13: Set<Int> = [0, 3, 4, 7, 10, 11]
    let path = try Self.fleet(
      prefix: "DD:34:02:0D:E0", count: 12, dfu: { sdk13.contains($0) ? #"{"buttonless": "sdk13"}"# : nil })
    defer { for p in [root, path] { try? FileManager.default.removeItem(atPath: p) } }
    let simulation = try Self.simulation(path)
    let result = try await Self.update(
      ["--firmware", "latest", "--catalog", folder, "--firmware-dir", root + "/cache", "--parallel", "3"],
      fleet: path, central: simulation.central)
    #expect(result.summary.outcomes.count == 12)
    #expect(result.summary.outcomes.values.allSatisfy { $0.state == .verified }, "\(result.summary.outcomes)")
    let mixUps = await Self.mixUps(simulation, fleet: try CentralFactory.fleet(path))
    #expect(mixUps.isEmpty, "\(mixUps)")
    for i in 0..<12 {
      let address = String(format: "DD:34:02:0D:E0:%02X", i)
      let name = result.reports[address]?.transfer.bootloaderName
      #expect(
        sdk13.contains(i) ? name == nil : name == BootloaderName.make(for: BluetoothAddress(address)!, attempt: 1),
        "\(address): \(name ?? "no name")")
    }
  }
}
