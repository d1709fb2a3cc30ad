import Foundation
import NordicDFU
import NordicDFUIO
import Simulator
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// `dfu serial` / `dfu inspect` with the nrfutil-made SoftDevice + bootloader + application fixture
/// (Tests/Fixtures/dfu/README.md): SoftDevice chaining, progress per image, skipped images, refusals.
@Suite("DFU multi-image packages", .timeLimit(.minutes(2))) struct DFUMultiImageTests {
  static func fixture(_ name: String) -> String { DFUCommandTests.fixture(name) }

  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  /// nrfutil made image #0 install FWID 0x101 (`--sd-id 0x101`) and image #1 require it: devices with
  /// 0xB7 (`--sd-req 0xB7`) take the package.
  @Test func laterImageIsCheckedAgainstTheSoftDeviceAnEarlierImageInstalls() throws {
    let command = try DFUInspectCommand.parse([Self.fixture("sd_bl_app.zip"), "--softdevice-id", "0xB7", "--json"])
    let (text, refusal) = try command.output()
    #expect(refusal == nil, "\(refusal ?? "")")
    let report = try JSONDecoder().decode(Report.self, from: Data(text.utf8))
    #expect(report.valid)
    let sdReq = report.checks.filter { $0.name == "sd-req" }
    #expect(sdReq.map(\.outcome) == ["passed", "passed"])
    #expect(sdReq.last?.detail.contains("installed by image #0") == true)
  }

  /// Devices whose SoftDevice the SD+BL image does not accept still fail — on image #0, not #1.
  @Test func aDeviceSoftDeviceTheSystemImageRefusesFailsOnThatImageOnly() throws {
    let report = try DFUInspectCommand.report(
      path: Self.fixture("sd_bl_app.zip"), expectations: DeviceExpectations(softDeviceID: 0x100))
    #expect(report.checks.filter { $0.outcome == .failed }.map { "\($0.image) \($0.name)" } == ["0 sd-req"])
  }

  /// The boot-validation signature is shown as `nrfutil pkg display` shows it.
  @Test func bootValidationSignatureMatchesNrfutilPkgDisplay() throws {
    let display = try String(contentsOfFile: Self.fixture("nrfutil-display-sd_bl_app.txt"), encoding: .utf8)
    let expected = display.split(separator: "\n").filter { $0.contains("boot_validation_signature") }.map { line in
      line.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
        String($0.element)
      }
    }
    let report = try DFUInspectCommand.report(path: Self.fixture("sd_bl_app.zip"), expectations: DeviceExpectations())
    #expect(expected.count == 2 && expected[1].first?.count == 128)
    #expect(report.images.map(\.bootValidationSignature) == expected)  // [["", ""], [128 hex digits]]
    #expect(report.text.contains("VALIDATE_ECDSA_P256_SHA256 \(expected[1][0])"))
    let json = try DFUInspectCommand.parse([Self.fixture("sd_bl_app.zip"), "--json"]).output().text
    #expect(json.contains(expected[1][0]))
  }

  @Test func legacyPackageInJSONIsARefusalWithItsReason() throws {
    let (text, refusal) = try DFUInspectCommand.parse([Self.fixture("legacy_app.zip"), "--json"]).output()
    let report = try JSONDecoder().decode(Report.self, from: Data(text.utf8))
    #expect(!report.valid && report.reason?.contains("legacy") == true)
    #expect(refusal?.contains("legacy") == true)
  }

  struct Report: Decodable {
    struct Check: Decodable {
      var image: Int
      var name: String
      var outcome: String
      var detail: String
    }
    var valid: Bool
    var checks: [Check]
    var reason: String?
  }
}

extension DFUMultiImageTests {
  /// Progress lines: image #1 counts its own bytes from 0, and every image ends at 100 %.
  @Test func progressLinesCountEachImageAndEndAtAHundredPercent() async throws {
    let package = try DFUPackage.load(path: Self.fixture("sd_bl_app.zip"))
    let host = DFUTargetHost(target: SimulatedDFUTarget())
    let lines = Lines()
    let printer = ProgressPrinter(names: package.images.map(\.kind.rawValue), emit: lines.add)
    try await DFUTransfer(factory: host, configuration: DFUEngineConfiguration(receiptInterval: 8), pause: { _ in })
      .run(package.transferImages) { printer.update(image: $0, confirmed: $1, total: $2) }
    let all = lines.all
    let sizes = package.images.map(\.firmware.count)  // 13312 (12 KiB SD + 1 KiB BL) and 1024
    #expect(all.contains("softdevice_bootloader: 100 % (\(sizes[0])/\(sizes[0]) bytes)"))
    #expect(all.first { $0.hasPrefix("application") } == "application: 0 % (0/\(sizes[1]) bytes)")
    #expect(all.last == "application: 100 % (\(sizes[1])/\(sizes[1]) bytes)")
  }

  /// A fresh run sends both images; a rerun after the system image went in (an interrupted update) sends
  /// only the application and says which image the device already had.
  @Test func rerunReportsTheSkippedImage() async throws {
    var config = DFUTargetConfiguration()
    config.softDeviceID = 0xB7
    let arguments = { (pty: PseudoTerminal) in
      [
        "--port", pty.path, "--package", Self.fixture("sd_bl_app.zip"), "--reconnect-delay", "0", "--softdevice-id",
        "0xB7",
      ]
    }
    let fresh = try PseudoTerminal()
    let freshServer = SerialDFUTargetServer(
      target: SimulatedDFUTarget(configuration: config), channel: fresh.deviceChannel())
    await freshServer.start()
    let first = try await DFUSerialCommand.parse(arguments(fresh)).perform()
    await freshServer.stop()
    #expect(first.hasPrefix("Device programmed: softdevice_bootloader + application from"))

    let pty = try PseudoTerminal()
    let server = SerialDFUTargetServer(target: SimulatedDFUTarget(configuration: config), channel: pty.deviceChannel())
    await server.start()
    defer { Task { await server.stop() } }
    let package = try DFUPackage.load(path: Self.fixture("sd_bl_app.zip"))
    try await DFUTransfer(factory: SerialDFULinkFactory(path: pty.path)).run([package.transferImages[0]])
    // the device now has bootloader 2: the SD+BL image is refused as not newer and skipped
    let second = try await DFUSerialCommand.parse(arguments(pty)).perform()
    #expect(
      second.hasPrefix("Device programmed: application (softdevice_bootloader skipped: the device already has it) from")
    )
  }
}
