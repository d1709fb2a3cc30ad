import Foundation
import TestServers

/// The Python fault-injecting server in Fixtures/ (the network failures the client must survive), one process per test: a real
/// HTTP server speaking over real sockets, not a stand-in for the client's peer. nginx, the CA and the
/// helpers it uses are in the TestServers target, shared with CLITests.
final class FaultServer: Sendable {
  let process: SpawnedProcess
  let port: Int
  var base: String { "http://127.0.0.1:\(port)" }
  /// The payload its download paths serve (the same formula as the script's BODY).
  static let body: [UInt8] = (0..<200_000).map { UInt8(($0 * 7 + 3) % 251) }

  private init(process: SpawnedProcess, port: Int) {
    self.process = process
    self.port = port
  }

  static func start() async throws -> FaultServer {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "Fixtures/fault_server.py"
    ).path
    let (process, port) = try await PythonServer.start(script: script)
    return FaultServer(process: process, port: port)
  }

  deinit { process.terminate() }
}
