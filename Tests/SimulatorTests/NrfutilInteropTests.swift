import Foundation
import NordicDFU
import Testing

@testable import Simulator

/// The simulated serial bootloader checked by a real third-party client: Nordic's `nrfutil` 6.1.7
/// (`nrfutil dfu serial`, nordic-dfu.md §4, §5), installed by `scripts/nrfutil-venv` into a Python 3.10
/// venv cached under `.build/`. No Python 3.10 → the test fails saying so.
@Suite struct NrfutilInteropTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Installs (once per test process) and returns the nrfutil executable.
  static let nrfutil = Task<String, any Error> {
    let result = try await run(repository.appendingPathComponent("scripts/nrfutil-venv").path, [])
    guard result.status == 0 else {
      throw DFUTransportError("scripts/nrfutil-venv failed (exit \(result.status)): \(result.error)")
    }
    return result.output.split(separator: "\n").last.map(String.init) ?? ""
  }

  @Test(arguments: [("app_signed.zip", "0", true), ("app_unsigned.zip", "8", false)])
  func nrfutilProgramsTheSimulatedSerialBootloader(fixture: String, prn: String, requireSignature: Bool) async throws {
    let nrfutil = try await Self.nrfutil.value
    var config = DFUTargetConfiguration()
    if requireSignature { config.publicKey = try DFUTestPackages.publicKey() }
    let pty = try PseudoTerminal()
    let server = SerialDFUTargetServer(target: SimulatedDFUTarget(configuration: config), channel: pty.deviceChannel())
    await server.start()
    defer { Task { await server.stop() } }

    let result = try await Self.run(nrfutil, [
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

  /// Runs a program to completion without blocking the cooperative pool (termination handler).
  static func run(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    // Output goes to files, not pipes, so a chatty child can never block on a full pipe.
    let base = NSTemporaryDirectory() + "nrfutil-\(UUID().uuidString)"
    _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
    _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
    defer {
      try? FileManager.default.removeItem(atPath: base + ".out")
      try? FileManager.default.removeItem(atPath: base + ".err")
    }
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
    process.standardInput = FileHandle.nullDevice
    let status: Int32 = try await withCheckedThrowingContinuation { done in
      process.terminationHandler = { done.resume(returning: $0.terminationStatus) }
      do { try process.run() } catch { done.resume(throwing: error) }
    }
    let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
    let error = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
    return (status, output, error)
  }
}
