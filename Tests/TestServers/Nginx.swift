import Foundation
import OwnThreads

/// Debian's nginx serving `root` on loopback over HTTP, and over HTTPS when given a certificate: the real
/// server of the HTTP client's tests (a real server, not a mock). Its prefix (config, logs, temp paths) is a
/// temporary folder; `accessLog` lets a test count the requests it served. `stop()` shuts it down and waits
/// until its ports refuse connections (a test of "the server is down"); otherwise it is terminated when
/// the value is released.
public final class Nginx: Sendable {
  public let process: SpawnedProcess
  public let prefix: String
  public let httpPort: Int
  public let httpsPort: Int?

  /// nginx's access log (the default `combined` format, one line per request, written as it is served).
  public var accessLog: String { prefix + "/access.log" }
  public var base: String { "http://127.0.0.1:\(httpPort)/" }

  private init(process: SpawnedProcess, prefix: String, httpPort: Int, httpsPort: Int?) {
    self.process = process
    self.prefix = prefix
    self.httpPort = httpPort
    self.httpsPort = httpsPort
  }

  public static func start(
    root: String, certificate: TestCA.ServerCertificate? = nil, extra: (Int) -> String = { _ in "" }
  ) async throws -> Nginx {
    let prefix = try LocalTools.temporaryDirectory("nginx")
    let httpPort = try LocalTools.freePort()
    let httpsPort = certificate == nil ? nil : try LocalTools.freePort()
    let tls =
      certificate.map { c in
        "server { listen 127.0.0.1:\(httpsPort!) ssl; root \(root); ssl_certificate \(c.certificate); ssl_certificate_key \(c.key);"
          + " gzip on; gzip_types application/json; gzip_min_length 1; etag on; \(extra(httpPort)) }"
      } ?? ""
    let conf = """
      daemon off; pid \(prefix)/nginx.pid; error_log \(prefix)/error.log; worker_processes 1;
      events { worker_connections 64; }
      http {
        access_log \(prefix)/access.log; client_body_temp_path \(prefix); proxy_temp_path \(prefix);
        fastcgi_temp_path \(prefix); uwsgi_temp_path \(prefix); scgi_temp_path \(prefix);
        types { application/json json; application/zip zip; }
        server { listen 127.0.0.1:\(httpPort); root \(root); gzip on; gzip_types application/json; gzip_min_length 1; etag on; }
        \(tls)
      }
      """
    try conf.write(toFile: "\(prefix)/nginx.conf", atomically: true, encoding: .utf8)
    let process = try ChildProcess.start(
      "/usr/sbin/nginx", ["-p", prefix, "-c", "\(prefix)/nginx.conf", "-e", "\(prefix)/error.log"],
      output: .discarded, errors: .discarded
    ).process
    let server = Nginx(process: process, prefix: prefix, httpPort: httpPort, httpsPort: httpsPort)
    try await LocalTools.waitForListener(port: httpPort)
    if let httpsPort { try await LocalTools.waitForListener(port: httpsPort) }
    return server
  }

  /// The access log's request lines (`GET /KBPro_SIM.json HTTP/1.1`), in the order they were served.
  public func requests() throws -> [String] {
    try String(contentsOfFile: accessLog, encoding: .utf8).split(separator: "\n").compactMap { line in
      line.split(separator: "\"", omittingEmptySubsequences: false).dropFirst().first.map(String.init)
    }
  }

  /// Terminates nginx (SIGTERM: its fast shutdown), waits for the process to exit on a thread of its own, then
  /// until its ports refuse connections.
  public func stop() async throws {
    let process = process
    await OwnThread.run("nginx-stop") {
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
    }
    try await LocalTools.waitUntilRefused(port: httpPort)
    if let httpsPort { try await LocalTools.waitUntilRefused(port: httpsPort) }
  }

  deinit { if process.isRunning { process.terminate() } }
}
