import Foundation
import Loopback
import OwnThreads

/// Debian's nginx serving one folder on a free loopback port, for `provision-bench http-download` (the HTTP
/// client's throughput benchmark). Everything it writes stays in `prefix` (config, pid, logs, every *_temp_path); it
/// runs in the foreground (`daemon off`) with one worker and sendfile, and `stop()` terminates it and waits
/// for it. Benchmark code cannot use the tests' launcher (Tests/TestServers), hence this short one.
final class BenchNginx: Sendable {
  let process: Process
  let port: Int

  private init(process: Process, port: Int) {
    self.process = process
    self.port = port
  }

  /// `locations`: more `location` blocks for the server (e.g. a rate-limited alias of the root).
  static func start(root: String, prefix: String, locations: String = "") async throws -> BenchNginx {
    try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
    guard let port = LoopbackPort.free() else { throw BenchError("no free loopback port") }
    let temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(prefix)/\($0);" }.joined(
      separator: " ")
    try """
    daemon off; pid \(prefix)/nginx.pid; error_log \(prefix)/error.log; worker_processes 1;
    events { worker_connections 16; }
    http { access_log \(prefix)/access.log; \(temp) sendfile on;
      server { listen 127.0.0.1:\(port); root \(root); \(locations) } }
    """.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
    process.arguments = ["-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/error.log"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let server = BenchNginx(process: process, port: port)
    let listening = try await BlockingIO.run {
      for _ in 0..<200 where process.isRunning {
        if LoopbackPort.accepts(port) { return true }
        usleep(50_000)
      }
      return false
    }
    guard listening else {
      await server.stop()
      throw BenchError("nginx did not listen on 127.0.0.1:\(port) within 10 s (see \(prefix)/error.log)")
    }
    return server
  }

  /// Terminates nginx and waits for it to exit.
  func stop() async {
    let process = process
    _ = try? await BlockingIO.run {
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
    }
  }
}

/// A benchmark that could not run (a server or tool failed, a file came out wrong).
struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
