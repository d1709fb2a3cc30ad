import Foundation
import HTTP

/// The loopback blukii Info Manager (InfoManager/info_manager_server.py): a real HTTP server on a
/// real socket, answering the request shapes of `InfoManagerEndpoints` with recorded bodies. One process per
/// test; it exits when this process closes its standard input (also when a test is killed). Shared by
/// InfoManagerTests and CLITests; `scripts/demo` starts the same script.
public final class InfoManagerServer: Sendable {
  let process: SpawnedProcess
  public let port: Int
  public var root: String { "http://127.0.0.1:\(port)" }

  public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("InfoManager/info_manager_server.py").path

  private init(process: SpawnedProcess, port: Int) {
    self.process = process
    self.port = port
  }

  public static func start(arguments: [String] = []) async throws -> InfoManagerServer {
    let (process, port) = try await PythonServer.start(script: script, arguments: arguments)
    return InfoManagerServer(process: process, port: port)
  }

  /// Switches the server's fault mode: normal, unavailable, malformed, slow.
  public func mode(_ mode: String) async throws {
    _ = try await Self.exchange(.post, "\(root)/_control", body: mode)
  }

  /// The API requests it has seen: method, path, body (the login's without its password).
  public func log() async throws -> [[String: Any]] {
    let data = try await Self.exchange(.get, "\(root)/_log", body: nil)
    return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
  }

  /// The test's own side channel to the server (control and log paths), through the libcurl client.
  private static func exchange(_ method: HTTPRequest.Method, _ url: String, body: String?) async throws -> Data {
    let request = HTTPRequest(method: method, url: url, body: body.map { Array($0.utf8) } ?? [])
    return Data(try await CurlHTTPClient(configuration: HTTPClientConfiguration(retry: .none)).fetch(request).body)
  }

  /// Ends the server now (tests call it when they end: a deinit may come late, and a live server keeps the
  /// descriptors it inherited from children started at the same moment).
  public func stop() { if process.isRunning { process.terminate() } }

  deinit { process.terminate() }
}
