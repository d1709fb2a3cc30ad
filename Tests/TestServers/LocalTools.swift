import Foundation

/// Helpers for the real servers the tests start on loopback (issue #12, "Tests (a real server, not a
/// mock)"): running a tool to its end, temporary folders, free ports, and waiting until a port listens or
/// refuses. Every blocking wait runs on a GCD thread, never on Swift's cooperative pool.
public enum LocalTools {
  /// Runs a program to its end without blocking a cooperative thread; throws on a non-zero exit.
  public static func run(_ path: String, _ arguments: [String]) async throws {
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
  public static func temporaryDirectory(_ name: String) throws -> String {
    let path = NSTemporaryDirectory() + "bp-\(name)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// A port nothing listens on right now (bound to 0 and released; a race with other programs is possible
  /// but harmless on a test machine's loopback).
  public static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw ServerError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Waits until something accepts TCP connections on the port: a readiness probe for a server just
  /// started, not synchronisation of anything under test.
  public static func waitForListener(port: Int, within seconds: Double = 20) async throws {
    guard await poll(within: seconds, until: { accepts(port: port) }) else {
      throw ServerError("nothing listens on 127.0.0.1:\(port) after \(seconds) s")
    }
  }

  /// Waits until the port refuses connections: a server that was stopped is really gone.
  public static func waitUntilRefused(port: Int, within seconds: Double = 20) async throws {
    guard await poll(within: seconds, until: { !accepts(port: port) }) else {
      throw ServerError("127.0.0.1:\(port) still accepts connections after \(seconds) s")
    }
  }

  /// Whether a TCP connection to 127.0.0.1:port is accepted now (blocking; call it off the pool).
  static func accepts(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
  }

  /// Checks `condition` every 50 ms on a GCD thread until it holds (true) or `seconds` pass (false).
  static func poll(within seconds: Double, until condition: @escaping @Sendable () -> Bool) async -> Bool {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
          if condition() { return continuation.resume(returning: true) }
          usleep(50_000)
        }
        continuation.resume(returning: false)
      }
    }
  }

  static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}

/// A test server that would not start, stop or answer as expected.
public struct ServerError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
