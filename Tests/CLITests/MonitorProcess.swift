import Foundation
import Synchronization
import TestServers
import Testing

/// A real `monitor` process for the `--metrics` and SIGHUP tests: its standard output and error collected
/// line by line as they come, the metrics server's address read from its standard error, and the external
/// programs that check it — curl (an independent HTTP client), Prometheus' parsers.
final class MonitorProcess: Sendable {
  let child: ChildProcess
  var process: SpawnedProcess { child.process }
  let output = ScanCommandTests.Lines()
  let errors = ScanCommandTests.Lines()
  private let readers: [Task<Void, Never>]

  init(_ arguments: [String]) throws {
    child = try ChildProcess.start(ApplyCrashTests.binary, ["monitor"] + arguments)
    let (outLines, errLines) = (child.output!, child.errors!)
    let (output, errors) = (self.output, self.errors)
    readers = [
      Task { for await line in outLines { output.add(line) } },
      Task { for await line in errLines { errors.add(line) } },
    ]
  }

  /// `HOST:PORT` from `monitor: metrics on http://HOST:PORT/metrics, …`.
  func address() async throws -> String {
    var found: String?
    try await Self.until(30, "the metrics address on stderr: \(errors.all)") {
      found =
        errors.all.lazy.compactMap { line -> String? in
          guard let range = line.range(of: "metrics on http://") else { return nil }
          return String(line[range.upperBound...].prefix { $0 != "/" })
        }.first
      return found != nil || !process.isRunning
    }
    return try #require(found, "monitor ended: \(errors.all)")
  }

  /// Stops it as Ctrl-C does and waits for its end.
  func stop() async {
    if process.isRunning { kill(process.processIdentifier, SIGINT) }
    await child.exit.wait()
    for reader in readers { await reader.value }
  }

  static func until(_ seconds: Double, _ what: @autoclosure () -> String, _ condition: () async throws -> Bool)
    async throws
  {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while try await !condition() {
      guard ContinuousClock.now < deadline else {
        Issue.record("waited \(seconds) s for \(what())")
        throw CancellationError()
      }
      try await Task.sleep(for: .milliseconds(200))
    }
  }

  /// Runs a program to its end with `input` on its standard input: status, standard output, standard error.
  static func tool(_ path: String, _ arguments: [String], input: String? = nil) async throws
    -> (status: Int32, output: String, errors: String)
  {
    try await ChildProcess.run(path, arguments, input: input.map { .text($0) } ?? .none)
  }

  /// curl: the HTTP status and the body (`-X METHOD` when given; HEAD as `-I`).
  static func curl(_ url: String, method: String = "GET") async throws -> (status: Int, body: String) {
    let marker = "\n@@status="
    var arguments = ["-sS", "--max-time", "10", "-w", marker + "%{http_code}", url]
    if method == "HEAD" {
      arguments.insert("-I", at: 0)
    } else if method != "GET" {
      arguments.insert(contentsOf: ["-X", method], at: 0)
    }
    let (status, output, errors) = try await tool("/usr/bin/curl", arguments)
    #expect(status == 0, "curl \(url): \(errors)")
    guard let range = output.range(of: marker, options: .backwards) else { return (0, output) }
    return (Int(output[range.upperBound...]) ?? 0, String(output[..<range.lowerBound]))
  }
}
