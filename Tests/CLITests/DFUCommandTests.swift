import ArgumentParser
import BeaconCore
import Foundation
import NordicDFU
import NordicDFUIO
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `beacon-provision dfu inspect` and `dfu serial`, run in process (the serial one against the simulated
/// bootloader on a pty).
@Suite(.timeLimit(.minutes(5))) struct DFUCommandTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/dfu")
  static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

  @Test func inspectShowsTheSignedFixtureAndVerifiesItsSignature() throws {
    let key = try DFUPublicKey(pem: String(contentsOfFile: Self.fixture("public.pem"), encoding: .utf8))
    let report = try DFUInspectCommand.report(
      path: Self.fixture("app_signed.zip"), expectations: DeviceExpectations(hardwareVersion: 52, publicKey: key))
    #expect(report.valid)
    #expect(report.images.count == 1)
    let image = try #require(report.images.first)
    #expect(
      image.kind == "application" && image.type == "APPLICATION" && image.firmwareVersion == 3
        && image.hardwareVersion == 52)
    #expect(
      image.softDeviceRequirements == ["0x0"] && image.applicationSize == 10000 && image.binSize == 10000
        && image.datSize == 139)
    #expect(
      image.signatureType == "ECDSA_P256_SHA256"
        && image.hash == "8e20ee475ed65ed79902923892ecfb229219c069be452ead1a3f188c8b5845e6")
    #expect(report.text.contains("signature: ECDSA_P256_SHA256 verified"))
    #expect(report.text.hasSuffix("package OK"))
  }

  @Test func inspectRefusesTheLegacyFixtureAndAWrongHardwareVersion() throws {
    #expect(throws: PackageRefusal.self) {
      try DFUInspectCommand.report(path: Self.fixture("legacy_app.zip"), expectations: DeviceExpectations())
    }
    let report = try DFUInspectCommand.report(
      path: Self.fixture("app_unsigned.zip"), expectations: DeviceExpectations(hardwareVersion: 53))
    #expect(!report.valid)
    #expect(report.checks.filter { $0.outcome == .failed }.map(\.name) == ["hw-version"])
    #expect(report.images.first?.softDeviceRequirements == ["0x101", "0xB7"])
  }

  @Test func serialUpdatesTheSimulatedBootloaderOnAPty() async throws {
    let pty = try PseudoTerminal()
    let server = SerialDFUTargetServer(target: SimulatedDFUTarget(), channel: pty.deviceChannel())
    await server.start()
    defer { Task { await server.stop() } }
    let command = try DFUSerialCommand.parse([
      "--port", pty.path, "--package", Self.fixture("app_unsigned.zip"), "--prn", "4", "--reconnect-delay", "0",
    ])
    try await command.run()
    #expect(await server.target.configuration.applicationVersion == 0x0001_0203)
  }

  @Test func serialRefusesATamperedPackageBeforeOpeningThePort() async throws {
    let archive = try LibzipArchive(path: Self.fixture("app_unsigned.zip"))
    var files = try archive.entries.map { ($0.name, try archive.read($0.name)) }
    files[files.firstIndex { $0.0 == "app.bin" }!].1[0] ^= 0xFF
    let path = NSTemporaryDirectory() + "tampered-\(UUID().uuidString).zip"
    try Data(StoredZipWriter.archive(files.map { (name: $0.0, bytes: $0.1) })).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    // the port does not exist: reaching it would give "cannot open", so the refusal must come first
    let command = try DFUSerialCommand.parse(["--port", "/nonexistent/ttyDFU", "--package", path])
    do {
      try await command.run()
      Issue.record("a tampered package was accepted")
    } catch let failure as CLIFailure {
      #expect(failure.message.contains("refused before connecting") && failure.message.contains("hash"))
    }
  }
}

extension DFUCommandTests {
  @Test func bleUpdatesASimulatedDeviceThroughButtonlessEntry() async throws {
    var target = SimulatedDFUTarget()
    target.inactivityElapsed()  // in application mode
    let peripheral = SimulatedDFUPeripheral(address: BluetoothAddress("C0:11:22:33:44:55")!, target: target)
    let command = try DFUBLECommand.parse([
      "--device", "C0:11:22:33:44:55", "--package", Self.fixture("app_unsigned.zip"), "--object-delay", "0",
      "--timeout", "10",
    ])
    try await command.run(central: SimulatedDFUCentral(peripherals: [peripheral]))
    #expect(await peripheral.jumps == 1)
    #expect(await peripheral.target.configuration.applicationVersion == 0x0001_0203)
  }
}
