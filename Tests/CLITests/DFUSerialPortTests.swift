import Foundation
import NordicDFU
import NordicDFUIO
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `dfu serial` against ports that cannot work: the refusal names the port and the reason at once
/// instead of counting link losses.
@Suite("DFU serial port errors", .timeLimit(.minutes(1))) struct DFUSerialPortTests {
  func failure(port: String) async throws -> String {
    let command = try DFUSerialCommand.parse(["--port", port, "--package", DFUCommandTests.fixture("app_unsigned.zip")])
    do {
      _ = try await command.perform()
    } catch let failure as CLIFailure {
      return failure.message
    }
    Issue.record("\(port) was accepted")
    return ""
  }

  @Test func aMissingPortIsReportedAsNotOpenable() async throws {
    let message = try await failure(port: "/nonexistent/ttyDFU")
    #expect(message.contains("cannot open /nonexistent/ttyDFU: No such file or directory"), "\(message)")
    #expect(!message.contains("link lost"))
  }

  /// A port where nothing answers (a pty nobody reads) is reported as silent after the first ready wait,
  /// not after four lost links: it ran 125 s and said "link lost 4 times in a row".
  @Test func aSilentPortIsReportedAsSilentAfterOneReadyWait() async throws {
    let pty = try PseudoTerminal()
    let command = try DFUSerialCommand.parse([
      "--port", pty.path, "--package", DFUCommandTests.fixture("app_unsigned.zip"), "--ready-timeout", "2", "--timeout",
      "0.5",
    ])
    do {
      _ = try await command.perform()
      Issue.record("a silent port was accepted")
    } catch let failure as CLIFailure {
      #expect(failure.message.contains("\(pty.path) is silent: no answer to"), "\(failure.message)")
      #expect(failure.message.contains("DFU bootloader") && !failure.message.contains("link lost"))
    }
  }

  @Test func aRegularFileIsReportedAsNotASerialPort() async throws {
    let path = NSTemporaryDirectory() + "not-a-tty-\(UUID().uuidString)"
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let message = try await failure(port: path)
    #expect(message.contains("\(path): it is not a serial port"), "\(message)")
    #expect(!message.contains("link lost"))
  }
}
