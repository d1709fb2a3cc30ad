import BeaconCore
import CampaignPipeline
import FirmwareIO
import Fleet
import Foundation
import KBeacon
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `dfu update --firmware latest` (docs/protocols/kbeacon.md §11) on simulated KBeacon Pros (model KBPro_SIM,
/// hver V1.0) from a copy of the repository's example catalogue used as a folder (file:// base): outdated
/// devices go to V5.14 (the catalogue's newest), current ones are skipped as up to date, a hardware version
/// without releases is skipped with that reason, the package is fetched once, and the report names its
/// sha256 (`sha256sum` of firmware/example/KBPro_SIM_V514.zip). With the folder gone, `--offline` works from
/// the cache, and an online run fails before any device is touched.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct CatalogueFolderCampaignTests {
  static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("firmware/example").path
  static let sha514 = "5aeee5c44ffa910a3e6641526c992fcdb47a0b87a3663713a54690cf74e8f92e"

  /// KBeacon Pros at these versions (addresses 4 apart so a bootloader at +1 is nobody's application),
  /// `hver` V2.0 for the ones named in `otherHardware`.
  static func fleet(_ versions: [String], prefix: String, otherHardware: Set<Int> = []) throws -> String {
    let devices = versions.enumerated().map { i, v in
      #"{"address": "\#(prefix):\#(String(format: "%02X", i * 4))", "kind": "kbeaconPro", "name": "KBPro_C\#(i)", "intervalMs": 300, "#
        + #""system": {"model": 12, "batteryPercent": 90, "firmware": "\#(v)"}"#
        + (otherHardware.contains(i) ? #", "kbeacon": {"settings": {"hver": "V2.0"}}"# : "") + "}"
    }
    let path = NSTemporaryDirectory() + "catalogue-fleet-\(UUID().uuidString).json"
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func update(_ arguments: [String], fleet: String, central: SimulatedCentral) async throws -> CampaignResult {
    let command = try DFUUpdateCommand.parse(
      arguments + [
        "--adapter", "sim:\(fleet)", "--scan", "5", "--retry-delay", "0",
        "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "30", "--attempts", "1",
      ])
    return try await DFUInvocation(command: command, pace: .unpaced, central: central).run()
  }

  /// `--firmware V5.13` on devices at 5.14 and 5.16: up to date against the version asked for, said so (they
  /// were told "the catalogue offers 5.14", a version nobody asked for); nothing is fetched or downgraded.
  @Test func anAskedVersionOlderThanTheDevicesSkipsThemNamingIt() async throws {
    let root = NSTemporaryDirectory() + "catalogue-asked-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Self.example, toPath: root + "/catalogue")
    let fleet = try Self.fleet(["5.14", "5.16"], prefix: "DD:34:02:09:F0")
    defer { for p in [root, fleet] { try? FileManager.default.removeItem(atPath: p) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    let result = try await Self.update(
      ["--firmware", "V5.13", "--catalog", root + "/catalogue", "--firmware-dir", root + "/cache"], fleet: fleet,
      central: central)
    let asked = "not older than the V5.13 asked for; a device is never downgraded)"
    #expect(
      result.summary.outcomes["DD:34:02:09:F0:00"] == .skipped("up to date (runs 5.14, \(asked)"),
      "\(result.summary.outcomes)")
    #expect(result.summary.outcomes["DD:34:02:09:F0:04"] == .skipped("up to date (runs 5.16, \(asked)"))
    #expect(central.bootloaders.entered.isEmpty)
  }

  @Test func outdatedUpdatedCurrentSkippedThenOfflineAndCatalogueGone() async throws {
    let root = NSTemporaryDirectory() + "catalogue-\(UUID().uuidString)"
    let (folder, cacheDir) = (root + "/catalogue", root + "/cache")
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Self.example, toPath: folder)
    let fleet = try Self.fleet(["5.12", "5.13", "5.14", "5.16", "5.11"], prefix: "DD:34:02:07:F0", otherHardware: [4])
    defer { for p in [root, fleet] { try? FileManager.default.removeItem(atPath: p) } }
    let address = { (i: Int) in String(format: "DD:34:02:07:F0:%02X", i * 4) }

    let central = try DFUFleetCampaignTests.central(fleet)
    let result = try await Self.update(
      ["--firmware", "latest", "--catalog", folder, "--firmware-dir", cacheDir], fleet: fleet, central: central)
    let outcomes = result.summary.outcomes
    #expect(outcomes[address(0)]?.state == .verified && outcomes[address(1)]?.state == .verified, "\(outcomes)")
    #expect(outcomes[address(2)] == .skipped("up to date (runs 5.14, the catalogue offers 5.14)"))
    #expect(outcomes[address(3)] == .skipped("up to date (runs 5.16, the catalogue offers 5.14)"))
    #expect(outcomes[address(4)] == .skipped("the KBPro_SIM catalogue lists no releases for hardware V2.0"))
    #expect(
      result.reports[address(0)]?.from?.description == "5.12" && result.reports[address(0)]?.to.description == "5.14")
    #expect(result.reports[address(1)]?.packageSHA256 == Self.sha514)
    #expect(
      result.packages == [.init(url: "file://\(folder)/KBPro_SIM_V514.zip", version: "V5.14", sha256: Self.sha514)])
    let table = DFUCampaignReport.table(result)
    #expect(table.contains("updated 5.12 → 5.14") && table.contains("package sha256 \(Self.sha514)"))
    #expect(try DFUCampaignReport.json(result).contains(#""packageSHA256": "\#(Self.sha514)""#))
    // only the two outdated devices went to their bootloaders; only V5.14 was fetched
    #expect(Set(central.bootloaders.entered.map(\.description)) == [address(0), address(1)])
    #expect(try await FirmwareCache.inFolder(cacheDir).list().map(\.appVersion) == ["V5.14"])
    for i in 0..<2 { #expect(try await DFUFleetCampaignTests.version(address(i), central: central) == "V5.14") }

    // The catalogue is gone. A new fleet at V5.12: offline, from the cache, it is updated…
    try FileManager.default.removeItem(atPath: folder)
    let second = try Self.fleet(["5.12"], prefix: "DD:34:02:08:F0")
    let third = try Self.fleet(["5.12"], prefix: "DD:34:02:09:F0")
    defer { for p in [second, third] { try? FileManager.default.removeItem(atPath: p) } }
    let offlineCentral = try DFUFleetCampaignTests.central(second)
    // (named under another --catalog: the report names where the cached copy came from, not today's base)
    let offline = try await Self.update(
      ["--firmware", "latest", "--catalog", "https://elsewhere.invalid/fw/", "--firmware-dir", cacheDir, "--offline"],
      fleet: second, central: offlineCentral)
    #expect(offline.summary.outcomes["DD:34:02:08:F0:00"]?.state == .verified, "\(offline.summary.outcomes)")
    #expect(offline.reports["DD:34:02:08:F0:00"]?.packageSHA256 == Self.sha514)
    #expect(
      offline.packages == [.init(url: "file://\(folder)/KBPro_SIM_V514.zip", version: "V5.14", sha256: Self.sha514)])

    // …and online it fails before any device is touched.
    let downCentral = try DFUFleetCampaignTests.central(third)
    do {
      _ = try await Self.update(
        ["--firmware", "latest", "--catalog", folder, "--firmware-dir", cacheDir], fleet: third, central: downCentral)
      Issue.record("the campaign ran with its catalogue gone")
    } catch let failure as CLIFailure {
      #expect(failure.message == "no device was touched: the catalogue folder \(folder)/ does not exist")
    }
    #expect(downCentral.bootloaders.entered.isEmpty)
    #expect(try await DFUFleetCampaignTests.version("DD:34:02:09:F0:00", central: downCentral) == "V5.12")
  }

  /// A package the catalogue's sha256 does not match: the campaign ends before any device enters its
  /// bootloader, and nothing is cached.
  @Test func aPackageThatFailsVerificationStopsTheCampaignFirst() async throws {
    let root = NSTemporaryDirectory() + "catalogue-\(UUID().uuidString)"
    let (folder, cacheDir) = (root + "/catalogue", root + "/cache")
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Self.example, toPath: folder)
    // V5.14's file replaced by V5.13's: same size, another sha256
    try FileManager.default.removeItem(atPath: folder + "/KBPro_SIM_V514.zip")
    try FileManager.default.copyItem(atPath: folder + "/KBPro_SIM_V513.zip", toPath: folder + "/KBPro_SIM_V514.zip")
    let fleet = try Self.fleet(["5.12"], prefix: "DD:34:02:0A:F0")
    defer { for p in [root, fleet] { try? FileManager.default.removeItem(atPath: p) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    do {
      _ = try await Self.update(
        ["--firmware", "latest", "--catalog", folder, "--firmware-dir", cacheDir], fleet: fleet, central: central)
      Issue.record("a package with the wrong sha256 was used")
    } catch let failure as CLIFailure {
      #expect(
        failure.message.contains("no device was updated")
          && failure.message.contains("the catalogue says \(Self.sha514)"), "\(failure.message)")
    }
    #expect(central.bootloaders.entered.isEmpty)
    #expect(try await FirmwareCache.inFolder(cacheDir).list().isEmpty)
  }
}
