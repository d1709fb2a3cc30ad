import Foundation
import Loopback
import OwnThreads

/// Helpers for the real servers the tests start on loopback (the HTTP client is tested against real servers, not
/// mocks) and for the real browser the HTML report is checked in: running a tool to its end (and reading
/// what it wrote), temporary folders, free ports, and waiting until a port listens or refuses. Every
/// blocking wait runs on a GCD thread, never on Swift's cooperative pool.
public enum LocalTools {
  /// Runs a program to its end without blocking a cooperative thread (at most `seconds`); throws on a
  /// non-zero exit with the end of what it wrote to standard error and output, so a failure in a CI log
  /// says why (a bare "initdb exited 1" did not).
  public static func run(_ path: String, _ arguments: [String], within seconds: Double = 300) async throws {
    let directory = try temporaryDirectory("run")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let result = try await output(path, arguments, in: directory, within: seconds)
    guard result.status == 0 else {
      let said = (result.stderr + result.stdout).suffix(2_000)
      throw ServerError("\(path) \(arguments.joined(separator: " ")) exited \(result.status): \(said)")
    }
  }

  /// What a program wrote, run to its end without blocking a cooperative thread: its standard output and
  /// standard error go to files in `directory` (a pipe could fill and stall it) and are read back once it
  /// has ended. A program still running after `seconds` is terminated (SIGTERM, then SIGKILL) and the call
  /// throws.
  public static func output(
    _ path: String, _ arguments: [String], in directory: String, within seconds: Double
  ) async throws -> (status: Int32, stdout: String, stderr: String) {
    let name = URL(fileURLWithPath: path).lastPathComponent + "-" + UUID().uuidString.prefix(8)
    let out = "\(directory)/\(name).stdout"
    let err = "\(directory)/\(name).stderr"
    for file in [out, err] where !FileManager.default.createFile(atPath: file, contents: nil) {
      throw ServerError("cannot create \(file)")
    }
    let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
    let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
    defer {
      try? stdout.close()
      try? stderr.close()
    }
    let child = try ChildProcess.start(path, arguments, output: .file(stdout), errors: .file(stderr))
    let process = child.process
    let started = Date()
    // SIGTERM, then SIGKILL 5 s later: a child inherits the signal mask of the thread that started it, and
    // the test runner's threads block SIGTERM, so SIGTERM alone may never end it and the test
    // would wait for good, past its time limit.
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 5) {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    let status = await child.wait()
    if Date().timeIntervalSince(started) >= seconds {
      throw ServerError("\(path) \(arguments.joined(separator: " ")) still ran after \(seconds) s and was terminated")
    }
    let text = { (file: String) in String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self) }
    return (status, try text(out), try text(err))
  }

  /// A new empty directory under the system's temporary folder, removed when the test process exits
  /// (`TemporaryFolders`; `BP_KEEP_TEST_FOLDERS=1` keeps them to look into a failure).
  public static func temporaryDirectory(_ name: String) throws -> String {
    let path = NSTemporaryDirectory() + "bp-\(name)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    TemporaryFolders.removeAtExit(path)
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

  /// Checks `condition` every 50 ms on a thread of its own (`OwnThread`: not a libdispatch worker, which
  /// Swift's tasks share on Linux) until it holds (true) or `seconds` pass (false).
  static func poll(within seconds: Double, until condition: @escaping @Sendable () -> Bool) async -> Bool {
    await OwnThread.run("test-poll") {
      let end = Date().addingTimeInterval(seconds)
      while Date() < end {
        if condition() { return true }
        usleep(50_000)
      }
      return false
    }
  }
}

/// A test server that would not start, stop or answer as expected.
public struct ServerError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
