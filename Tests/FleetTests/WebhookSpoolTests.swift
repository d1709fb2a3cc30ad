import Foundation
import Synchronization
import Testing

@testable import Fleet

/// The webhook spool and its delivery worker against a scripted poster: rows leave the spool only after a
/// 2xx, the same row is retried (same key) after a failure, order is kept, a 4xx refusal is dropped with a
/// warning, and the bound drops the oldest rows and says how many.
@Suite("Webhook spool", .timeLimit(.minutes(1))) struct WebhookSpoolTests {
  /// Answers from a script (an Int is a status, nil a connection failure) and records every POST.
  final class ScriptedPoster: WebhookPoster {
    struct Failure: Error {}
    private let state: Mutex<(script: [Int?], posts: [(key: String, body: String)])>
    init(_ script: [Int?]) { state = Mutex((script, [])) }

    func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Int {
      let key = headers.first { $0.name == "Idempotency-Key" }?.value ?? "?"
      let answer = state.withLock { s -> Int? in
        s.posts.append((key, String(decoding: body, as: UTF8.self)))
        return s.script.isEmpty ? 200 : s.script.removeFirst()
      }
      guard let answer else { throw Failure() }
      return answer
    }

    var keys: [String] { state.withLock { $0.posts.map(\.key) } }
  }

  final class Warnings: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func items(_ keys: [String], url: String = "http://h/") -> [WebhookDelivery.Item] {
    keys.map {
      WebhookDelivery.Item(url: url, idempotencyKey: $0, orderKey: "AA:00:00:00:00:01", body: #"{"id":"\#($0)"}"#)
    }
  }

  @Test func retriesTheSameRowInOrderAndDropsARefusal() async throws {
    let spool = WebhookSpool(journal: try Journal(path: nil))
    try await spool.enqueue(Self.items(["k1", "k2", "k3", "k4"]))
    let poster = ScriptedPoster([503, nil, 200, 429, 200, 404, 200])
    let warnings = Warnings()
    let delivery = WebhookDelivery(
      spool: spool, poster: poster, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(4), warn: warnings.add)
    let (wake, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    signal.finish()
    await delivery.run(url: "http://h/", wake: wake)
    #expect(poster.keys == ["k1", "k1", "k1", "k2", "k2", "k3", "k4"])
    #expect(try await spool.count() == 0)
    #expect(
      warnings.all == [
        "webhook http://h/ is failing: HTTP 503; its events stay spooled and are retried",
        "webhook http://h/ is delivering again after 2 failed attempts",
        "webhook http://h/ is failing: HTTP 429; its events stay spooled and are retried",
        "webhook http://h/ is delivering again after 1 failed attempt",
        "webhook http://h/ refused event k3 with HTTP 404; it is dropped",
      ])
  }

  /// `--metrics` counts failed deliveries by reason: a retried status, no answer, a refusal.
  @Test func eachFailedPostIsToldWithItsReason() async throws {
    let spool = WebhookSpool(journal: try Journal(path: nil))
    try await spool.enqueue(Self.items(["k1", "k2", "k3", "k4"]))
    let reasons = Warnings()
    var delivery = WebhookDelivery(
      spool: spool, poster: ScriptedPoster([503, nil, 200, 429, 200, 404, 200]), initialBackoff: .milliseconds(1),
      maxBackoff: .milliseconds(4), warn: { _ in })
    delivery.failed = reasons.add
    let (wake, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    signal.finish()
    await delivery.run(url: "http://h/", wake: wake)
    #expect(reasons.all == ["http_status", "transport", "http_status", "refused"])
  }

  /// A receiver that fails was silent until the monitor exited: the first failure is warned
  /// about with its reason, the following ones are not (a receiver down all night would flood the log), and
  /// the recovery is. Secrets in the URL's query are not repeated.
  @Test func aFailingReceiverIsWarnedAboutOnceAndWhenItRecovers() async throws {
    let url = "http://h/hook?token=s3cr3t"
    let spool = WebhookSpool(journal: try Journal(path: nil))
    try await spool.enqueue(Self.items(["k1", "k2"], url: url))
    let poster = ScriptedPoster([nil, 502, 500, 500, 200, 200])
    let warnings = Warnings()
    let delivery = WebhookDelivery(
      spool: spool, poster: poster, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(2), warn: warnings.add)
    let (wake, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    signal.finish()
    await delivery.run(url: url, wake: wake)
    #expect(poster.keys == ["k1", "k1", "k1", "k1", "k1", "k2"])
    #expect(
      warnings.all == [
        "webhook http://h/hook?token=REDACTED is failing: Failure(); its events stay spooled and are retried",
        "webhook http://h/hook?token=REDACTED is delivering again after 4 failed attempts",
      ])
    #expect(try await spool.count() == 0)
  }

  /// `monitor spool list|drop`'s queries: per-URL depth, every row with its last error, drop by id or all.
  @Test func depthsEntriesAndDrops() async throws {
    let spool = WebhookSpool(journal: try Journal(path: nil))
    try await spool.enqueue(Self.items(["k1", "k2", "k3"]) + Self.items(["o1"], url: "http://other/"))
    let delivery = WebhookDelivery(spool: spool, poster: ScriptedPoster([503]), warn: { _ in })
    _ = await delivery.attempt(try #require(try await spool.head(url: "http://h/")))
    #expect(try await spool.depths().map { "\($0.url) \($0.count)" } == ["http://h/ 3", "http://other/ 1"])
    let entries = try await spool.entries()
    #expect(entries.map(\.item.idempotencyKey) == ["k1", "k2", "k3", "o1"])
    #expect(entries[0].lastError == "HTTP 503" && entries[0].attempts == 1 && entries[1].lastError == nil)
    #expect(try await spool.drop(ids: [entries[1].id, 9999]) == 1)
    #expect(try await spool.entries().map(\.item.idempotencyKey) == ["k1", "k3", "o1"])
    #expect(try await spool.dropAll() == 3)
    #expect(try await spool.count() == 0)
  }

  @Test func aFailedRowKeepsItsAttemptsAndError() async throws {
    let spool = WebhookSpool(journal: try Journal(path: nil))
    try await spool.enqueue(Self.items(["k1"]))
    let delivery = WebhookDelivery(spool: spool, poster: ScriptedPoster([500]), warn: { _ in })
    let head = try #require(try await spool.head(url: "http://h/"))
    #expect(await delivery.attempt(head) == .retry)
    let after = try #require(try await spool.head(url: "http://h/"))
    #expect(after.id == head.id && after.attempts == 1 && after.item.idempotencyKey == "k1")
    #expect(
      delivery.backoff(1) == .milliseconds(500) && delivery.backoff(4) == .seconds(4)
        && delivery.backoff(20) == .seconds(30))
  }

  @Test func theBoundDropsTheOldestAndSaysHowMany() async throws {
    let spool = WebhookSpool(journal: try Journal(path: nil), limit: 3)
    #expect(try await spool.enqueue(Self.items(["k1", "k2"])) == 0)
    #expect(try await spool.enqueue(Self.items(["k3", "k4", "k5"])) == 2)
    #expect(try await spool.head(url: "http://h/")?.item.idempotencyKey == "k3")
    #expect(try await spool.count() == 3)
    try await spool.enqueue(Self.items(["o1"], url: "http://other/"))
    #expect(try await spool.urls() == ["http://h/", "http://other/"])
  }
}
