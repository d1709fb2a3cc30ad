import Firmware
import Profiles
import Testing

/// Version order (docs/protocols/kbeacon.md §11): KKM's apps compare `float(appVersion[1:])`; we compare
/// components as integers, and say where the two disagree.
@Suite("Firmware catalogue versions", .timeLimit(.minutes(1))) struct FirmwareVersionRuleTests {
  static func entry(_ version: String) -> CatalogueEntry {
    CatalogueEntry(appVersion: version, version: FirmwareVersion(version)!, appFileName: "f.zip", note: "")
  }

  @Test func kkmFloatRule() {
    // Java's Float.parseFloat of the text after the first letter.
    #expect(KKMVersionOrder.value("V5.10") == 5.1)
    #expect(KKMVersionOrder.value("V5.9") == 5.9)
    #expect(KKMVersionOrder.value("V5.2.1") == nil)
    #expect(KKMVersionOrder.value("V") == nil)
  }

  @Test func whereKKMGoesWrongAndWeDoNot() {
    // KKM: 5.9 > 5.1, so V5.9 would be "newer" than V5.10. Ours: 5.10 is the later release.
    #expect(FirmwareVersion("V5.9")! < FirmwareVersion("V5.10")!)
    #expect(KKMVersionOrder.disagrees(Self.entry("V5.9"), Self.entry("V5.10")))
    #expect(KKMVersionOrder.disagrees(Self.entry("V5.3"), Self.entry("V5.22")))
    // KKM's own two-digit shape: both rules agree.
    #expect(!KKMVersionOrder.disagrees(Self.entry("V5.22"), Self.entry("V5.30")))
    #expect(!KKMVersionOrder.disagrees(Self.entry("V5.09"), Self.entry("V5.10")))
  }

  static let catalogue = FirmwareCatalogue(
    model: "KBPro",
    releases: [
      // deliberately out of order: the newest is in the middle
      ("V1.0", [entry("V5.12"), entry("V5.14"), entry("V5.13")]),
      ("V2.0", []),
    ])

  @Test func latestIsTheGreatestNotTheLast() {
    #expect(Self.catalogue.latest(hardware: "V1.0")?.appVersion == "V5.14")
    #expect(
      Self.catalogue.newer(than: FirmwareVersion("5.12")!, hardware: "V1.0").map(\.appVersion) == ["V5.13", "V5.14"])
  }

  @Test func choices() {
    func choose(_ hver: String?, _ ver: String?, _ wanted: FirmwareWanted) -> FirmwareChoice {
      FirmwareChoice.choose(Self.catalogue, hardware: hver, current: ver.flatMap(FirmwareVersion.init), wanted: wanted)
    }
    #expect(choose("V1.0", "V5.11", .latest) == .install(Self.entry("V5.14")))
    #expect(
      choose("V1.0", "V5.14", .latest) == .upToDate(current: FirmwareVersion("5.14")!, newest: FirmwareVersion("5.14")!)
    )
    #expect(
      choose("V1.0", "V5.20", .latest) == .upToDate(current: FirmwareVersion("5.20")!, newest: FirmwareVersion("5.14")!)
    )
    #expect(choose("V1.0", "V5.11", .version(FirmwareVersion("5.13")!)) == .install(Self.entry("V5.13")))
    // never a downgrade
    #expect(
      choose("V1.0", "V5.14", .version(FirmwareVersion("5.13")!))
        == .upToDate(current: FirmwareVersion("5.14")!, newest: FirmwareVersion("5.14")!))
    guard case .unavailable(let none) = choose("V2.0", "V5.11", .latest) else {
      Issue.record("V2.0 has no entries")
      return
    }
    #expect(none == "the KBPro catalogue lists no releases for hardware V2.0")
    guard case .unavailable(let other) = choose("V9.9", "V5.11", .latest) else {
      Issue.record("V9.9 is not listed")
      return
    }
    #expect(other == "the KBPro catalogue has no firmware for hardware V9.9 (it has: V1.0, V2.0)")
    guard case .unavailable(let missing) = choose("V1.0", "V5.11", .version(FirmwareVersion("5.99")!)) else {
      Issue.record()
      return
    }
    #expect(missing.contains("no V5.99") && missing.contains("V5.12, V5.14, V5.13"))
    guard case .unavailable = choose(nil, "V5.11", .latest) else {
      Issue.record("no hver")
      return
    }
    #expect(FirmwareWanted("latest") == .latest && FirmwareWanted("V5.30") == .version(FirmwareVersion("5.30")!))
    #expect(FirmwareWanted("newest") == nil)
  }

  @Test func locations() throws {
    let kkm = try CatalogueLocation(base: "https://download.kkmiot.com:8093/KBeaconFirmware")
    #expect(try kkm.catalogueURL(model: "KBPro") == "https://download.kkmiot.com:8093/KBeaconFirmware/KBPro.json")
    #expect(kkm.packageURL(Self.entry("V5.12")) == "https://download.kkmiot.com:8093/KBeaconFirmware/f.zip")
    #expect(throws: CatalogueLocationError.self) { try CatalogueLocation(base: "ftp://x/") }
    #expect(throws: CatalogueLocationError.self) { try kkm.catalogueURL(model: "../etc/passwd") }
    #expect(try CatalogueLocation(base: "file:///srv/fw").filePath == "/srv/fw/")
  }
}
