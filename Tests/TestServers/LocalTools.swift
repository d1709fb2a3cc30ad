import Foundation
import Loopback

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

  /// A port nothing listens on right now (`LoopbackPort.free`).
  public static func freePort() throws -> Int {
    guard let port = LoopbackPort.free() else { throw ServerError("no free port") }
    return port
  }

  /// Waits until something accepts TCP connections on the port: a readiness probe for a server just
  /// started, not synchronisation of anything under test.
  public static func waitForListener(port: Int, within seconds: Double = 20) async throws {
    guard await poll(within: seconds, until: { LoopbackPort.accepts(port) }) else {
      throw ServerError("nothing listens on 127.0.0.1:\(port) after \(seconds) s")
    }
  }

  /// Waits until the port refuses connections: a server that was stopped is really gone.
  public static func waitUntilRefused(port: Int, within seconds: Double = 20) async throws {
    guard await poll(within: seconds, until: { !LoopbackPort.accepts(port) }) else {
      throw ServerError("127.0.0.1:\(port) still accepts connections after \(seconds) s")
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
}

/// A test server that would not start, stop or answer as expected.
public struct ServerError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
