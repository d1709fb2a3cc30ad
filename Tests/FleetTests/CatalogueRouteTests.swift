import BeaconCore
import Profiles
import Testing

@testable import Fleet

/// How a catalogue campaign's route decides per device (docs/protocols/kbeacon.md §11): the package resolved
/// for its (model, hver), skipped when it already runs that version or newer, the survey's identity when
/// it cannot be read now, and a failure for a pair nothing was resolved for.
@Suite("Catalogue route", .timeLimit(.minutes(1))) struct CatalogueRouteTests {
  static func id(_ model: String?, _ hver: String?, _ ver: String?) -> DeviceIdentity {
    DeviceIdentity(model: model, hardware: hver, firmware: ver.flatMap(FirmwareVersion.init))
  }

  static let route = CatalogueRoute(
    plans: [
      .init(model: "KBPro", hardware: "V1.0"): .install(
        FirmwareInstall(
          version: FirmwareVersion("5.14")!, updater: FakeUpdater(devices: [:]), packageSHA256: "ab")),
      .init(model: "KBPro", hardware: "V1.1"): .current(FirmwareVersion("5.14")!),
      .init(model: "KBPro", hardware: "V2.0"): .none("no firmware for hardware V2.0"),
    ],
    surveyed: ["A": id("KBPro", "V1.0", "5.12")])

  static func decision(_ address: String, _ identity: DeviceIdentity?) -> String {
    switch route.route(address: address, identity: identity) {
    case .install(let i): "install \(i.version) \(i.packageSHA256 ?? "")"
    case .skip(let r): "skip \(r)"
    case .fail(let r): "fail \(r)"
    case .retryLater(let r): "retry later \(r)"
    }
  }

  @Test func decisions() {
    #expect(Self.decision("B", Self.id("KBPro", "V1.0", "5.12")) == "install 5.14 ab")
    #expect(
      Self.decision("B", Self.id("KBPro", "V1.0", "5.14")) == "skip up to date (runs 5.14, the catalogue offers 5.14)")
    #expect(
      Self.decision("B", Self.id("KBPro", "V1.0", "5.20")) == "skip up to date (runs 5.20, the catalogue offers 5.14)")
    #expect(
      Self.decision("B", Self.id("KBPro", "V1.1", "5.14")) == "skip up to date (runs 5.14, the catalogue offers 5.14)")
    #expect(Self.decision("B", Self.id("KBPro", "V1.1", "5.10")).hasPrefix("fail it now reports 5.10, older than 5.14"))
    #expect(Self.decision("B", Self.id("KBPro", "V2.0", "5.10")) == "skip no firmware for hardware V2.0")
    #expect(Self.decision("B", Self.id("Other", "V1.0", "5.10")).hasPrefix("fail Other hardware V1.0 was not seen"))
    #expect(Self.decision("B", Self.id(nil, "V1.0", "5.10")).hasPrefix("skip it did not report its model"))
    // unreadable now (in its bootloader after an interrupted transfer): the survey's identity decides
    #expect(Self.decision("A", nil) == "install 5.14 ab")
    #expect(Self.decision("C", nil).hasPrefix("fail could not read"))
  }
}
