import Foundation
import NordicDFU
import NordicDFUIO
import TestServers
import Testing

@testable import Simulator

/// The simulated serial bootloader checked by a real third-party client: Nordic's `nrfutil` 6.1.7
/// (`nrfutil dfu serial`, docs/protocols/nordic-dfu.md §4, §5), installed by `scripts/nrfutil-venv` into a Python 3.10
/// venv cached under `.build/`. No Python 3.10 → the test fails saying so.
@Suite(.timeLimit(.minutes(10))) struct NrfutilInteropTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Installs (once per test process) and returns the nrfutil executable.
  static let nrfutil = Task<String, any Error> {
    let result = try await run(repository.appendingPathComponent("scripts/nrfutil-venv").path, [])
    guard result.status == 0 else {
      throw DFUTransportError("scripts/nrfutil-venv failed (exit \(result.status)): \(result.error)")
    }
    return result.output.split(separator: "\n").last.map(String.init) ?? ""
  }

  /// The signed fixture against a signature-checking target (unsigned images and PRN receipts are covered
  /// by the multi-image test below; one nrfutil run costs ~2 s, so the cases are not multiplied).
  @Test func nrfutilProgramsTheSimulatedSerialBootloader() async throws {
    let (fixture, prn, requireSignature) = ("app_signed.zip", "0", true)
    let nrfutil = try await Self.nrfutil.value
    var config = DFUTargetConfiguration()
    if requireSignature { config.publicKey = try DFUTestPackages.publicKey() }
    let pty = try PseudoTerminal()
    let server = SerialDFUTargetServer(target: SimulatedDFUTarget(configuration: config), channel: pty.deviceChannel())
    await server.start()
    defer { Task { await server.stop() } }

    let result = try await Self.run(
      nrfutil,
      [
        "dfu", "serial", "-pkg", DFUTestPackages.fixturePath(fixture), "-p", pty.path, "-b", "115200", "-fc", "0",
        "-cd", "0", "-t", "1", "-prn", prn,
      ])
    #expect(result.status == 0, "nrfutil: \(result.output) \(result.error)")
    #expect(result.output.contains("Device programmed."), "nrfutil: \(result.output) \(result.error)")
    let package = try DFUTestPackages.fixture(fixture)
    let target = await server.target
    #expect(target.activated.map(\.firmware) == [package.images[0].firmware])
    #expect(target.configuration.applicationVersion == package.images[0].initPacket.initCommand.firmwareVersion)
  }

  /// A SoftDevice+bootloader+application package (our `StoredZipWriter`, nrfutil's manifest layout):
  /// nrfutil must send SD+BL first, reopen the port, then the application (§2.5, §4). The first run is
  /// cut by a link drop during the application; the second run must resume and finish it.
  @Test func nrfutilSendsSystemThenApplicationAndResumesAfterADrop() async throws {
    let nrfutil = try await Self.nrfutil.value
    let sdbl = DFUTestPackages.softDeviceBootloader()
    let app = DFUTestPackages.application(9000)
    let manifest =
      #"{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"},"softdevice_bootloader":{"bin_file":"sd_bl.bin","dat_file":"sd_bl.dat","info_read_only_metadata":{"bl_size":4096,"sd_size":8192}}}}"#
    let zip = StoredZipWriter.archive([
      ("manifest.json", Array(manifest.utf8)), ("sd_bl.bin", sdbl.firmware), ("sd_bl.dat", sdbl.initPacket),
      ("app.bin", app.firmware), ("app.dat", app.initPacket),
    ])
    let path = NSTemporaryDirectory() + "sdblapp-\(UUID().uuidString).zip"
    try Data(zip).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    // our reader agrees on the order
    #expect(
      try DFUPackage(archive: LibzipArchive(path: path)).images.map(\.kind) == [.softDeviceBootloader, .application])

    // the drop comes 5000 bytes into the application (SD+BL is 12288 bytes)
    let pty = try PseudoTerminal()
    let server = SerialDFUTargetServer(
      target: SimulatedDFUTarget(faults: DFUTargetFaults(dropLinkAtByte: 12288 + 5000)), channel: pty.deviceChannel())
    await server.start()
    defer { Task { await server.stop() } }
    let arguments = [
      "dfu", "serial", "-pkg", path, "-p", pty.path, "-b", "115200", "-fc", "0", "-cd", "0", "-t", "1", "-prn", "8",
    ]

    let first = try await Self.run(nrfutil, arguments)
    #expect(first.status != 0, "the first run should have been cut: \(first.output)")
    #expect(await server.linkDrops == 1)
    #expect(await server.target.activated.map(\.type) == [.softDeviceBootloader])

    // nrfutil starts again from image 1 (SD+BL): the target now refuses it as not newer — so resume
    // with an application-only package built from the same files, as an operator would.
    let appOnly = StoredZipWriter.archive([
      ("manifest.json", UnsignedApplicationPackage.manifest),
      ("app.bin", app.firmware), ("app.dat", app.initPacket),
    ])
    let appPath = path + ".app.zip"
    try Data(appOnly).write(to: URL(fileURLWithPath: appPath))
    defer { try? FileManager.default.removeItem(atPath: appPath) }
    var second = arguments
    second[3] = appPath
    let result = try await Self.run(nrfutil, second)
    #expect(
      result.status == 0 && result.output.contains("Device programmed."), "nrfutil: \(result.output) \(result.error)")
    let target = await server.target
    #expect(target.activated.map(\.type) == [.softDeviceBootloader, .application])
    #expect(target.activated.map(\.firmware) == [sdbl.firmware, app.firmware])
  }

  /// Runs a program to its end (`ChildProcess`: its output read as it comes, its end awaited off the pool).
  static func run(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: String, error: String)
  {
    let run = try await ChildProcess.run(path, arguments, input: .none)
    return (run.status, run.output, run.errors)
  }
}
