import Fleet
import Foundation
import Loopback
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// How `monitor`'s webhooks travel, with real processes and real servers: HTTPS to Debian's
/// nginx with a private CA (`--cacert`) and a 302 on the way, proxied to the recording receiver; and Ctrl-C
/// with deliveries still queued behind a slow receiver, which the drain must finish before the monitor exits.
@Suite(.isolatedState, .timeLimit(.minutes(3))) struct MonitorWebhookTransportTests {
  typealias Crash = MonitorWebhookCrashTests

  static func folder(_ name: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
      .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try Crash.fleet(folder + "/fleet.json")
    try
      #"{"version": 1, "defaults": {"exitTimeout": 1}, "events": [{"name": "in", "trigger": "enter"}, {"name": "out", "trigger": "exit"}]}"#
      .write(toFile: folder + "/events.json", atomically: true, encoding: .utf8)
    return folder
  }

  static func arguments(_ folder: String, state: String, webhook: String) -> [String] {
    [
      "--adapter", "sim:\(folder)/fleet.json", "--events", folder + "/events.json", "--webhook", webhook, "--jsonl",
      "--state-dir", state,
    ]
  }

  @Test func httpsWithAPrivateCAFollowsARedirectWithTheSamePost() async throws {
    let folder = try Self.folder("monitor-tls")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let port = try #require(LoopbackPort.free())
    let record = folder + "/received.jsonl"
    let receiver = try await WebhookReceiver.start(port: port, record: record)
    let certificate = try await TestCA.make(in: try LocalTools.temporaryDirectory("ca"))
    let nginx = try await Nginx.start(root: folder, certificate: certificate) { _ in
      "location = /moved { return 302 /hook; } location = /hook { proxy_pass http://127.0.0.1:\(port)/hook; }"
    }
    let url = "https://127.0.0.1:\(try #require(nginx.httpsPort))/moved"

    // Without the private CA nothing is delivered: the certificate is checked, and the events stay spooled.
    let untrusted = Crash.Lines()
    let (_, exit1, reader1) = try Crash.monitor(
      Self.arguments(folder, state: folder + "/state-untrusted", webhook: url) + [
        "--duration", "2", "--drain-timeout", "1",
      ], ids: untrusted)
    await exit1.wait()
    await reader1.value
    #expect(try WebhookReceiver.records(record).isEmpty)
    #expect(try await WebhookSpool(journal: Journal(path: folder + "/state-untrusted/journal.sqlite")).count() >= 1)

    let trusted = Crash.Lines()
    let (process, exit2, reader2) = try Crash.monitor(
      Self.arguments(folder, state: folder + "/state", webhook: url)
        + ["--duration", "3", "--drain-timeout", "20", "--cacert", certificate.caCertificate], ids: trusted)
    await exit2.wait()
    await reader2.value
    await receiver.stop()
    #expect(process.terminationStatus == 0)
    let records = try WebhookReceiver.records(record)
    #expect(!trusted.all.isEmpty)
    #expect(Set(records.map(\.key)) == Set(trusted.all), "printed \(trusted.all.count), received \(records.count)")
    #expect(records.allSatisfy { $0.contentType == "application/json" && !$0.duplicate })
    // Each delivery went to /moved and, redirected, reached /hook as a POST (libcurl's default would be a GET).
    let served = try nginx.requests()
    #expect(served.filter { $0.hasPrefix("POST /moved ") }.count == records.count)
    #expect(served.filter { $0.hasPrefix("POST /hook ") }.count == records.count)
    #expect(!served.contains { $0.hasPrefix("GET ") })
  }

  @Test func ctrlCDrainsWhatIsQueuedBeforeExiting() async throws {
    let folder = try Self.folder("monitor-drain")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let port = try #require(LoopbackPort.free())
    let record = folder + "/received.jsonl"
    // Answers each POST 1 s late: events (about 1.6 a second) queue up in the spool.
    let receiver = try await WebhookReceiver.start(port: port, record: record, delay: 1)
    let state = folder + "/state"
    let ids = Crash.Lines()
    let (process, exit, reader) = try Crash.monitor(
      Self.arguments(folder, state: state, webhook: "http://127.0.0.1:\(port)/hook") + [
        "--duration", "120", "--drain-timeout", "60",
      ],
      ids: ids)
    try await Crash.until(60) { try WebhookReceiver.records(record).count >= 3 }
    kill(process.processIdentifier, SIGINT)
    let atSignal = try WebhookReceiver.records(record).count
    await exit.wait()
    await reader.value
    await receiver.stop()
    #expect(process.terminationStatus == 0)
    let records = try WebhookReceiver.records(record)
    #expect(records.count > atSignal, "nothing was delivered after Ctrl-C")
    #expect(Set(records.map(\.key)) == Set(ids.all), "printed \(ids.all.count), received \(records.count)")
    #expect(try await WebhookSpool(journal: Journal(path: state + "/journal.sqlite")).count() == 0)
  }
}
