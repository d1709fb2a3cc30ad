import Foundation

/// Real servers for the HTTP client's tests, started per test on loopback and stopped when the value is
/// released: nginx from Debian (HTTP and HTTPS with a CA made by the `openssl` command) and the Python
/// fault-injecting server in Fixtures/. Nothing here is a stand-in for the client's peer: both are real HTTP
/// servers speaking over real sockets.
enum LocalTools {
  /// Runs a program to its end without blocking a cooperative thread; throws on a non-zero exit.
  static func run(_ path: String, _ arguments: [String]) async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    guard status == 0 else { throw ServerError("\(path) \(arguments.joined(separator: " ")) exited \(status)") }
  }

  /// A new empty directory under the system's temporary folder.
  static func temporaryDirectory(_ name: String) throws -> String {
    let path = NSTemporaryDirectory() + "bp-\(name)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// A port nothing listens on right now (bound to 0 and released; a race with other programs is possible
  /// but harmless on a test machine's loopback).
  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw ServerError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Waits (on a GCD thread) until something accepts TCP connections on the port: a readiness probe for a
  /// server just started, not synchronisation of anything under test.
  static func waitForListener(port: Int, within seconds: Double = 20) async throws {
    let ready: Bool = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
          let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
          var address = sockaddr_in()
          address.sin_family = sa_family_t(AF_INET)
          address.sin_port = in_port_t(UInt16(port).bigEndian)
          address.sin_addr.s_addr = inet_addr("127.0.0.1")
          let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
          }
          close(fd)
          if connected { return continuation.resume(returning: true) }
          usleep(50_000)
        }
        continuation.resume(returning: false)
      }
    }
    guard ready else { throw ServerError("nothing listens on 127.0.0.1:\(port) after \(seconds) s") }
  }
}

struct ServerError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Fixtures/fault_server.py, one process per test.
final class FaultServer: Sendable {
  let process: Process
  let port: Int
  var base: String { "http://127.0.0.1:\(port)" }
  /// The payload its download paths serve (the same formula as the script's BODY).
  static let body: [UInt8] = (0..<200_000).map { UInt8(($0 * 7 + 3) % 251) }

  private init(process: Process, port: Int) {
    self.process = process
    self.port = port
  }

  static func start() async throws -> FaultServer {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/fault_server.py").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [script]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    // The server exits when this pipe closes: with this process, even when a test is killed.
    process.standardInput = Pipe()
    try process.run()
    let line: String = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        var text = ""
        while !text.contains("\n") {
          let data = output.fileHandleForReading.availableData
          if data.isEmpty { break }
          text += String(decoding: data, as: UTF8.self)
        }
        continuation.resume(returning: text)
      }
    }
    guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      process.terminate()
      throw ServerError("fault_server.py did not print its port: \(line)")
    }
    return FaultServer(process: process, port: port)
  }

  deinit { process.terminate() }
}

/// Debian's nginx serving `root` on loopback over HTTP, and over HTTPS when given a certificate.
final class Nginx: Sendable {
  let process: Process
  let httpPort: Int
  let httpsPort: Int?

  private init(process: Process, httpPort: Int, httpsPort: Int?) {
    self.process = process
    self.httpPort = httpPort
    self.httpsPort = httpsPort
  }

  static func start(root: String, certificate: TestCA.ServerCertificate? = nil, extra: (Int) -> String = { _ in "" }) async throws -> Nginx {
    let prefix = try LocalTools.temporaryDirectory("nginx")
    let httpPort = try LocalTools.freePort()
    let httpsPort = certificate == nil ? nil : try LocalTools.freePort()
    let tls = certificate.map { c in
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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
    process.arguments = ["-p", prefix, "-c", "\(prefix)/nginx.conf", "-e", "\(prefix)/error.log"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let server = Nginx(process: process, httpPort: httpPort, httpsPort: httpsPort)
    try await LocalTools.waitForListener(port: httpPort)
    if let httpsPort { try await LocalTools.waitForListener(port: httpsPort) }
    return server
  }

  deinit { process.terminate() }
}

/// A private CA and a server certificate for 127.0.0.1, made with the `openssl` command.
enum TestCA {
  struct ServerCertificate: Sendable {
    var caCertificate: String
    var certificate: String
    var key: String
  }

  static func make(in directory: String) async throws -> ServerCertificate {
    let openssl = "/usr/bin/openssl"
    let d = directory
    try await LocalTools.run(openssl, [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem", "-days", "2",
      "-subj", "/CN=beacon-provision test CA",
    ])
    try await LocalTools.run(openssl, [
      "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/server.key", "-out", "\(d)/server.csr", "-subj", "/CN=127.0.0.1",
    ])
    try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(d)/san.ext", atomically: true, encoding: .utf8)
    try await LocalTools.run(openssl, [
      "x509", "-req", "-in", "\(d)/server.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key", "-CAcreateserial",
      "-out", "\(d)/server.pem", "-days", "2", "-extfile", "\(d)/san.ext",
    ])
    return ServerCertificate(caCertificate: "\(d)/ca.pem", certificate: "\(d)/server.pem", key: "\(d)/server.key")
  }
}
