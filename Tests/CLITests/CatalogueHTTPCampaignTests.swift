import FirmwareIO
import Foundation
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// Firmware from the network tested against a real server, not a mock: a catalogue campaign on the simulated fleet against a copy
/// of firmware/example served by Debian's nginx on loopback (`--catalog http://127.0.0.1:PORT/`). Outdated
/// devices go to V5.14, current ones are skipped, and nginx's access log shows one GET of the catalogue and
/// one of the package for the whole campaign (one download per package, shared by every device that needs
/// it). Then nginx is stopped (its port refuses connections): `--offline` updates a new fleet from the cache,
/// and an online run fails with a one-line error naming the URL and what to try, before any device enters
/// its bootloader. The helpers are CatalogueFolderCampaignTests' (fleet, update) and DFUFleetCampaignTests'
/// (central, version).
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct CatalogueHTTPCampaignTests {
  typealias Folder = CatalogueFolderCampaignTests

  @Test func oneDownloadPerPackageThenWithTheServerDownOfflineWorksAndOnlineFailsFirst() async throws {
    let root = try LocalTools.temporaryDirectory("catalogue-http")
    let (site, cacheDir) = (root + "/www", root + "/cache")
    try FileManager.default.copyItem(atPath: Folder.example, toPath: site)
    let nginx = try await Nginx.start(root: site)
    let base = nginx.base
    let fleet = try Folder.fleet(["5.12", "5.13", "5.14", "5.16", "5.11"], prefix: "DD:34:02:0B:F0")
    defer { for p in [root, fleet] { try? FileManager.default.removeItem(atPath: p) } }
    let address = { (i: Int) in String(format: "DD:34:02:0B:F0:%02X", i * 4) }
    let online = ["--firmware", "latest", "--catalog", base, "--firmware-dir", cacheDir]

    let central = try DFUFleetCampaignTests.central(fleet)
    let result = try await Folder.update(online, fleet: fleet, central: central)
    let outcomes = result.summary.outcomes
    for i in [0, 1, 4] { #expect(outcomes[address(i)]?.state == .verified, "device \(i): \(outcomes)") }
    #expect(outcomes[address(2)] == .skipped("up to date (runs 5.14, the catalogue offers 5.14)"))
    #expect(outcomes[address(3)] == .skipped("up to date (runs 5.16, the catalogue offers 5.14)"))
    #expect(result.packages == [.init(url: base + "KBPro_SIM_V514.zip", version: "V5.14", sha256: Folder.sha514)])
    #expect(Set(central.bootloaders.entered.map(\.description)) == [address(0), address(1), address(4)])
    for i in [0, 1, 4] { #expect(try await DFUFleetCampaignTests.version(address(i), central: central) == "V5.14") }
    // nginx served the base's HEAD (the reachability check), the catalogue once and the package once, for
    // three devices that needed it; V5.13's package was never asked for.
    #expect(
      try nginx.requests() == ["HEAD / HTTP/1.1", "GET /KBPro_SIM.json HTTP/1.1", "GET /KBPro_SIM_V514.zip HTTP/1.1"])
    #expect(try await FirmwareCache.inFolder(cacheDir).list().map(\.appVersion) == ["V5.14"])

    // The server goes down for good: nothing listens on its port any more.
    try await nginx.stop()
    let second = try Folder.fleet(["5.12"], prefix: "DD:34:02:0C:F0")
    let third = try Folder.fleet(["5.13"], prefix: "DD:34:02:0D:F0")
    defer { for p in [second, third] { try? FileManager.default.removeItem(atPath: p) } }

    // Offline, a new outdated fleet is updated from the cache…
    let offlineCentral = try DFUFleetCampaignTests.central(second)
    let offline = try await Folder.update(online + ["--offline"], fleet: second, central: offlineCentral)
    #expect(offline.summary.outcomes["DD:34:02:0C:F0:00"]?.state == .verified, "\(offline.summary.outcomes)")
    #expect(offline.reports["DD:34:02:0C:F0:00"]?.packageSHA256 == Folder.sha514)
    #expect(try await DFUFleetCampaignTests.version("DD:34:02:0C:F0:00", central: offlineCentral) == "V5.14")

    // …and online the run fails before any device is touched, saying which URL and what to try.
    let downCentral = try DFUFleetCampaignTests.central(third)
    do {
      _ = try await Folder.update(online, fleet: third, central: downCentral)
      Issue.record("the campaign ran with its catalogue server down")
    } catch let failure as CLIFailure {
      // libcurl's reason ("Failed to connect to 127.0.0.1 port P after N ms: Couldn't connect to server")
      // between the base, named once, and what to try.
      let message = failure.message
      #expect(
        message.hasPrefix("no device was touched: the catalogue \(base) cannot be reached: Failed to connect"),
        "\(message)")
      #expect(
        message.hasSuffix(
          "(check the address, the network and any proxy variables; "
            + "or add --offline to use the catalogues and packages already in the cache)"), "\(message)")
      #expect(!message.contains("\n") && message.components(separatedBy: base).count == 2, "\(message)")
    }
    #expect(downCentral.bootloaders.entered.isEmpty)
    #expect(try await DFUFleetCampaignTests.version("DD:34:02:0D:F0:00", central: downCentral) == "V5.13")
  }

  /// A package the catalogue names but the server does not have (404): the run fails before any device
  /// enters its bootloader, naming the package URL once (it was printed twice: "URL: URL: HTTP 404").
  @Test func aMissingPackageIsNamedOnce() async throws {
    let root = try LocalTools.temporaryDirectory("catalogue-http-404")
    let (site, cacheDir) = (root + "/www", root + "/cache")
    try FileManager.default.copyItem(atPath: Folder.example, toPath: site)
    try FileManager.default.removeItem(atPath: site + "/KBPro_SIM_V514.zip")
    let nginx = try await Nginx.start(root: site)
    let fleet = try Folder.fleet(["5.12"], prefix: "DD:34:02:0E:F0")
    defer { for p in [root, fleet] { try? FileManager.default.removeItem(atPath: p) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    do {
      _ = try await Folder.update(
        ["--firmware", "latest", "--catalog", nginx.base, "--firmware-dir", cacheDir], fleet: fleet, central: central)
      Issue.record("the campaign ran without its package")
    } catch {
      let message = "\(error)"
      let url = nginx.base + "KBPro_SIM_V514.zip"
      #expect(message.hasPrefix("no device was updated: \(url): HTTP 404"), "\(message)")
      #expect(message.components(separatedBy: url).count == 2, "\(message)")
    }
    #expect(central.bootloaders.entered.isEmpty)
    try await nginx.stop()
  }
}
