import ArgumentParser
import Fleet
import Foundation
import Loopback
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// The monitor's webhook spool seen from the operator's side: a failing receiver is warned
/// about while the monitor runs and the spool's depth reported periodically; unusable URLs are refused at
/// start and a spool's leftovers for one are not retried for ever; `monitor spool list|retry|drop`.
@Suite(.isolatedState, .timeLimit(.minutes(1))) struct MonitorSpoolTests {
  typealias Lines = ScanCommandTests.Lines

  /// Fails (connection refused) while `up` is false; records the URLs it was asked to POST to.
  final class SwitchPoster: WebhookPoster {
    struct Refused: Error, CustomStringConvertible { var description: String { "connection refused" } }
    let up = Mutex(false)
    let posted = Mutex<[String]>([])
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Int {
      posted.withLock { $0.append(url) }
      guard up.withLock({ $0 }) else { throw Refused() }
      return 200
    }
  }

  static func items(_ keys: [String], url: String) -> [WebhookDelivery.Item] {
    keys.map { WebhookDelivery.Item(url: url, idempotencyKey: $0, orderKey: "AA:00:00:00:00:01", body: "{}") }
  }

  static func until(_ what: String, in lines: Lines, _ condition: @escaping ([String]) -> Bool) async throws {
    try await MonitorWebhookCrashTests.until(20) { condition(lines.all) }
  }

  @Test func aFailingWebhookIsWarnedAboutWhileItRunsWithTheSpoolDepth() async throws {
    let spool = WebhookSpool(journal: try Journal(path: nil))
    let poster = SwitchPoster()
    let warnings = Lines()
    let dispatch = WebhookDispatch(spool: spool, poster: poster, depthInterval: .milliseconds(100), warn: warnings.add)
    await dispatch.start(urls: ["http://h/hook?key=abc123"])
    await dispatch.send(Self.items(["k1", "k2"], url: "http://h/hook?key=abc123"))
    try await Self.until("failing", in: warnings) { $0.contains { $0.contains("webhook spool: 2 events waiting") } }
    #expect(
      warnings.all.first
        == "webhook http://h/hook?key=REDACTED is failing: connection refused; its events stay spooled and are retried")
    #expect(warnings.all.contains("webhook spool: 2 events waiting (http://h/hook?key=REDACTED 2)"))
    #expect(warnings.all.filter { $0.contains("is failing") }.count == 1)
    poster.up.withLock { $0 = true }
    try await Self.until("delivering", in: warnings) { $0.contains { $0.contains("is delivering again") } }
    #expect(await dispatch.finish(grace: .seconds(5)) == 0)
    #expect(!warnings.all.joined().contains("abc123"))
  }

  /// The whole command with libcurl against a port nobody listens on: the refusal is a warning on standard
  /// error while it runs (it was silent until "N events stay spooled" at the exit).
  @Test func aRefusedWebhookIsWarnedAboutByTheRunningMonitor() async throws {
    let folder = try MonitorCommandTests.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let port = try #require(LoopbackPort.free())
    let command =
      try MonitorCommand.parseAsRoot([
        "--adapter", "sim:\(folder)/fleet.json", "--webhook", "http://127.0.0.1:\(port)/hook", "--duration", "3",
        "--drain-timeout", "1", "--state-dir", folder + "/state",
      ]) as! MonitorCommand
    let warnings = Lines()
    try await CLILog.$destination.withValue(CLILog.Destination(level: .warning, write: warnings.add)) {
      try await command.run(pace: .unpaced, write: { _ in })
    }
    let failing = warnings.all.filter { $0.contains("webhook http://127.0.0.1:\(port)/hook is failing: ") }
    #expect(failing.count == 1, "\(warnings.all)")
  }

  /// Rows an earlier version spooled for a URL with no host were retried at every start, for ever.
  @Test func leftoversForAnUnusableURLAreNotRetried() async throws {
    let spool = WebhookSpool(journal: try Journal(path: nil))
    try await spool.enqueue(Self.items(["bad1", "bad2"], url: "http://") + Self.items(["ok1"], url: "http://ok/"))
    let poster = SwitchPoster()
    poster.up.withLock { $0 = true }
    let warnings = Lines()
    let dispatch = WebhookDispatch(spool: spool, poster: poster, warn: warnings.add)
    await dispatch.start(urls: [])
    #expect(await dispatch.finish(grace: .seconds(5)) == 2)
    #expect(poster.posted.withLock { $0 } == ["http://ok/"])
    #expect(
      warnings.all == [
        #"2 spooled webhook events will not be sent: "http://" has no host; 'monitor spool drop --all' removes them"#
      ])
  }

  @Test func unusableWebhookOptionsAreRefusedBeforeAnything() throws {
    for url in ["http://", "http://h:99999/", "http://a b/", "http://h/\r\n", "https://user:pw@h/"] {
      #expect(throws: (any Error).self, "\(url)") {
        _ = try MonitorCommand.parseAsRoot(["--adapter", "sim", "--webhook", url])
      }
    }
    #expect(throws: Never.self) {
      _ = try MonitorCommand.parseAsRoot(["--adapter", "sim", "--webhook", "https://hooks.example.net:8443/a?b=c"])
    }
  }

  @Test func aHeaderFileIsCheckedAndNeverEchoesItsValues() throws {
    let headers = try WebhookHeaderFile.parse(
      "# the receiver's token\nAuthorization: Bearer s3cr3t\r\n\nX-Site: 12\n", file: "h"
    ).common
    #expect(headers.map(\.name) == ["Authorization", "X-Site"] && headers.map(\.value) == ["Bearer s3cr3t", "12"])
    for (text, expected) in [
      ("Authorization Bearer s3cr3t", "h:1: expected 'Name: value'"), ("Bad Name: s3cr3t", "h:1: the header name"),
      ("Idempotency-Key: s3cr3t", "h:1: Idempotency-Key is set by the monitor itself"),
      ("\nX-Empty:   ", "h:2: X-Empty has an empty value"),
      ("[ftp://a/]\nA: s3cr3t", "h:1: the section must name an http:// or https:// URL prefix"),
      ("[https://a/]\n[https://a/]", "h:2: [https://a/] is already a section"),
      ("[https://a/", "h:1: a section is [URL prefix]"),
    ] {
      do {
        _ = try WebhookHeaderFile.parse(text, file: "h")
        Issue.record("accepted \(text)")
      } catch let failure as CLIFailure {
        #expect(failure.message.contains("--webhook-header-file \(expected)"), "\(failure.message)")
        #expect(!failure.message.contains("s3cr3t"))
      }
    }
  }

  /// Each receiver gets its own credential: a header file's `[URL prefix]` sections go only to the URLs they
  /// prefix (the longest prefix wins), the common headers to all — checked on a real receiver's requests.
  @Test func aHeaderFileSectionGoesOnlyToItsURLs() async throws {
    let headers = try WebhookHeaderFile.parse(
      "X-Site: 12\n[http://127.0.0.1:1/a]\nAuthorization: Bearer for-a\n[http://127.0.0.1:1/a/deeper]\nAuthorization: Bearer deeper\n",
      file: "h")
    #expect(headers.headers(for: "http://127.0.0.1:1/a/x").map(\.value) == ["12", "Bearer for-a"])
    #expect(headers.headers(for: "http://127.0.0.1:1/a/deeper/x").map(\.value) == ["12", "Bearer deeper"])
    #expect(headers.headers(for: "http://127.0.0.1:1/b").map(\.value) == ["12"])
    let folder = NSTemporaryDirectory() + "hook-sections-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let port = try #require(LoopbackPort.free())
    let receiver = try await WebhookReceiver.start(port: port, record: folder + "/record.jsonl")
    let base = "http://127.0.0.1:\(port)"
    let poster = CurlWebhookPoster(
      extraHeaders: try WebhookHeaderFile.parse(
        "X-Site: 12\n[\(base)/a]\nAuthorization: Bearer for-a\n[\(base)/b]\nAuthorization: Bearer for-b\n", file: "h"))
    for (path, id) in [("/a", "1"), ("/b", "2"), ("/c", "3")] {
      let body = Array(#"{"schema":"beacon-provision/presence-event/v1","id":"\#(id)","event":"x"}"#.utf8)
      #expect(
        try await poster.post(
          url: base + path, headers: [("Idempotency-Key", id), ("Content-Type", "application/json")], body: body) == 200
      )
    }
    await receiver.stop()
    let lines = try String(contentsOfFile: folder + "/record.jsonl", encoding: .utf8).split(separator: "\n")
      .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    #expect(lines.map { $0["path"] as? String } == ["/a", "/b", "/c"])
    #expect(lines.map { $0["authorization"] as? String } == ["Bearer for-a", "Bearer for-b", nil])
    #expect(lines.allSatisfy { $0["site"] as? String == "12" })
  }

  /// `monitor spool list` shows each row with its URL redacted and why it failed; `retry` sends now, per URL
  /// in order, stopping at a URL's first failure; `drop` removes by id or all.
  @Test func spoolListRetryAndDrop() async throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString.prefix(8))")
      .path
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: state) }
    let spool = WebhookSpool(journal: try Journal(path: state + "/journal.sqlite"))
    try await spool.enqueue(
      Self.items(["r1-1", "r1-2"], url: "http://down/hook?token=s3cr3t") + Self.items(["r1-3"], url: "http://up/"))
    try await spool.enqueue(Self.items(["r1-4"], url: "http://"))
    try await spool.failed(1, error: "HTTP 503")

    let listed = Lines()
    try await (MonitorSpoolListCommand.parseAsRoot(["--state-dir", state]) as! MonitorSpoolListCommand).run(
      write: listed.add)
    #expect(listed.all.count == 6)
    #expect(listed.all[1].contains("r1-1") && listed.all[1].hasSuffix("http://down/hook?token=REDACTED  (HTTP 503)"))
    #expect(listed.all[4].contains(#"(unusable: "http://" has no host)"#))
    #expect(listed.all.last == "4 events for 3 URLs")
    #expect(!listed.all.joined().contains("s3cr3t"))

    let poster = SwitchPoster()
    let retried = Lines()
    await #expect(throws: ExitCode.self) {
      try await (MonitorSpoolRetryCommand.parseAsRoot(["--state-dir", state]) as! MonitorSpoolRetryCommand).run(
        poster: poster, write: retried.add)
    }
    // Only the first row of each usable URL is tried while they fail.
    #expect(poster.posted.withLock { $0 }.sorted() == ["http://down/hook?token=s3cr3t", "http://up/"])
    #expect(retried.all.last == "delivered 0, refused and dropped 0, still spooled 4")
    poster.up.withLock { $0 = true }
    let again = Lines()
    await #expect(throws: ExitCode.self) {
      try await (MonitorSpoolRetryCommand.parseAsRoot(["--state-dir", state]) as! MonitorSpoolRetryCommand).run(
        poster: poster, write: again.add)
    }
    #expect(again.all.last == "delivered 3, refused and dropped 0, still spooled 1")
    #expect(again.all.contains(#"http://: not sent: "http://" has no host"#))

    #expect(throws: (any Error).self) { _ = try MonitorSpoolDropCommand.parseAsRoot(["--state-dir", state]) }
    let dropped = Lines()
    try await (MonitorSpoolDropCommand.parseAsRoot(["--state-dir", state, "--all"]) as! MonitorSpoolDropCommand).run(
      write: dropped.add)
    #expect(dropped.all == ["dropped 1 event"])
    #expect(try await spool.count() == 0)
    // Reached through `monitor spool …` as the root command parses it.
    // Through the root command as the binary parses it: `--state-dir` reaches the subcommand (the parent
    // `monitor` took it before, and `spool list` read the default state directory).
    let viaRoot = try #require(
      try BeaconProvision.parseAsRoot(["monitor", "spool", "list", "--state-dir", state]) as? MonitorSpoolListCommand)
    #expect(viaRoot.stateDir == state)
    let dropViaRoot = try #require(
      try BeaconProvision.parseAsRoot(["monitor", "spool", "drop", "--all", "--state-dir", state])
        as? MonitorSpoolDropCommand)
    #expect(dropViaRoot.stateDir == state)
    #expect(try BeaconProvision.parseAsRoot(["monitor", "--adapter", "sim", "--duration", "1"]) is MonitorCommand)
  }
}
