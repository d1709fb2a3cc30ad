import Foundation
import Loopback
import TestServers

/// The recording webhook receiver (Fixtures/webhook_receiver.py), a real HTTP server on loopback: started on
/// a given port and record file, stopped to make an outage, started again on the same port and file.
final class WebhookReceiver: Sendable {
  struct Record: Sendable {
    var key: String
    var duplicate: Bool
    var contentType: String?
    /// The event's `device.address`, or `tag:NAME`.
    var orderKey: String
  }

  let process: SpawnedProcess
  let input: Pipe

  private init(process: SpawnedProcess, input: Pipe) {
    self.process = process
    self.input = input
  }

  /// With `delay`, each POST is answered that many seconds after it is recorded (a slow receiver).
  static func start(port: Int, record: String, delay: Double = 0) async throws -> WebhookReceiver {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "Fixtures/webhook_receiver.py"
    ).path
    let input = Pipe()
    let server = try ChildProcess.start(
      "/usr/bin/python3", [script, String(port), record, String(delay)], errors: .discarded, input: .pipe(input))
    for await line in server.output ?? AsyncStream(unfolding: { nil }) where line == "ready" {
      return WebhookReceiver(process: server.process, input: input)
    }
    throw ServerError("webhook_receiver.py did not start on port \(port)")
  }

  /// Stops the server (its port then refuses connections).
  func stop() async {
    try? input.fileHandleForWriting.close()
    process.terminate()
    // Bounded: a child inherits the starting thread's signal mask, where the test runner blocks SIGTERM;
    // SIGKILL cannot be blocked.
    for _ in 0..<250 where process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
  }

  static func records(_ file: String) throws -> [Record] {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
    return try text.split(separator: "\n").map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
      let body = object["body"] as! [String: Any]
      let order =
        ((body["device"] as? [String: Any])?["address"] as? String)
        ?? "tag:" + (((body["tag"] as? [String: Any])?["name"] as? String) ?? "?")
      return Record(
        key: object["key"] as! String, duplicate: object["duplicate"] as! Bool,
        contentType: object["contentType"] as? String, orderKey: order)
    }
  }

  deinit {
    try? input.fileHandleForWriting.close()
    if process.isRunning { process.terminate() }
  }
}
