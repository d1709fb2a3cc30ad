import BeaconCore
import Foundation

/// Sends one HTTP POST and says what the receiver answered: the live side is libcurl (the CLI adapts
/// `HTTP.CurlHTTPClient`), tests may use a real server. Throws only when no HTTP answer came (connection
/// refused, reset, timed out).
public protocol WebhookPoster: Sendable {
  func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Int
}

/// The spool's delivery worker for one webhook URL of the presence monitor: it sends the oldest spooled row, deletes it
/// once the receiver answered 2xx, and only then sends the next — so each device's events arrive in order.
/// Every POST carries `Content-Type: application/json` and `Idempotency-Key` (the row's key, the same on
/// every retry and after a restart); a receiver that keeps the keys it has seen gets each event exactly
/// once even when an answer is lost or the monitor is killed between the 2xx and the delete.
///
/// Failures [I]: no answer, 408, 425, 429 and 5xx are retried, the same row again, after a backoff that
/// doubles from `initialBackoff` to `maxBackoff` and starts afresh after a success; any other 4xx is a
/// refusal for good — retrying the same body cannot change it — so the row is dropped with a warning
/// rather than block every later event.
public struct WebhookDelivery: Sendable {
  /// One delivery to spool.
  public struct Item: Sendable, Hashable {
    public var url: String
    public var idempotencyKey: String
    /// What must stay in order (the device's address, `tag:NAME` for a tag).
    public var orderKey: String
    /// The JSON body.
    public var body: String

    public init(url: String, idempotencyKey: String, orderKey: String, body: String) {
      self.url = url
      self.idempotencyKey = idempotencyKey
      self.orderKey = orderKey
      self.body = body
    }
  }

  /// A spooled row.
  public struct Entry: Sendable, Hashable {
    public var id: Int64
    public var item: Item
    public var attempts: Int
    public var createdAt: Date
    /// Why the last attempt failed (nil before any).
    public var lastError: String?
  }

  public enum Outcome: Sendable, Hashable { case delivered, retry, refused }

  public let spool: WebhookSpool
  public let poster: any WebhookPoster
  public var initialBackoff: Duration
  public var maxBackoff: Duration
  /// Warnings (a refused event, a spool that cannot be read), for standard error.
  public let warn: @Sendable (String) -> Void
  /// Told of each failed POST, with a reason a metric can count by (`--metrics`): `http_status` (an answer
  /// that is retried), `transport` (no answer), `refused` (a 4xx that drops the row).
  public var failed: (@Sendable (String) -> Void)?

  public init(
    spool: WebhookSpool, poster: any WebhookPoster, initialBackoff: Duration = .milliseconds(500),
    maxBackoff: Duration = .seconds(30), warn: @escaping @Sendable (String) -> Void
  ) {
    self.spool = spool
    self.poster = poster
    self.initialBackoff = initialBackoff
    self.maxBackoff = maxBackoff
    self.warn = warn
  }

  /// Delivers `url`'s rows until the task is cancelled, or until `wake` has finished and nothing is left
  /// for `url`. `wake` is signalled whenever rows are spooled.
  ///
  /// It says when delivery changes state (a receiver that is down must not stay silent until the monitor exits):
  /// a warning at the first failed POST (with why: refused, HTTP 503, TLS…) and one when a POST succeeds
  /// again after failures, with how many attempts failed meanwhile. [I] Failures in between are not each
  /// warned about (one every `maxBackoff` for a receiver down all night); the spool depth is reported
  /// periodically instead (`WebhookDispatch`).
  public func run(url: String, wake: AsyncStream<Void>) async {
    var signals = wake.makeAsyncIterator()
    let shown = RedactedURL(url)
    var failures = 0
    var failedPosts = 0
    while !Task.isCancelled {
      let head: Entry?
      do { head = try await spool.head(url: url) } catch {
        warn("cannot read the webhook spool in \(spool.journal.location): \(error)")
        failures += 1
        guard await pause(failures) else { return }
        continue
      }
      guard let head else {
        if await signals.next() == nil { return }
        continue
      }
      let (outcome, reason) = await post(head)
      if outcome == .retry {
        if failedPosts == 0 {
          warn("webhook \(shown) is failing: \(shown.scrub(reason ?? "?")); its events stay spooled and are retried")
        }
        failedPosts += 1
        failures += 1
        guard await pause(failures) else { return }
      } else {
        if failedPosts > 0 {
          warn("webhook \(shown) is delivering again after \(failedPosts) failed attempt\(failedPosts == 1 ? "" : "s")")
        }
        failedPosts = 0
        failures = 0
      }
    }
  }

  /// One POST of one row, and what it did to the spool.
  public func attempt(_ entry: Entry) async -> Outcome {
    await post(entry).outcome
  }

  /// One POST of one row: what it did to the spool and, for a retry, why.
  func post(_ entry: Entry) async -> (outcome: Outcome, reason: String?) {
    let headers = [
      (name: "Content-Type", value: "application/json"), (name: "Idempotency-Key", value: entry.item.idempotencyKey),
    ]
    let reason: String
    do {
      let status = try await poster.post(url: entry.item.url, headers: headers, body: Array(entry.item.body.utf8))
      switch status {
      case 200..<300:
        try? await spool.remove(entry.id)
        return (.delivered, nil)
      case 400..<500 where ![408, 425, 429].contains(status):
        warn(
          "webhook \(RedactedURL(entry.item.url)) refused event \(entry.item.idempotencyKey) with HTTP \(status); it is dropped"
        )
        try? await spool.remove(entry.id)
        failed?("refused")
        return (.refused, nil)
      default:
        reason = "HTTP \(status)"
        failed?("http_status")
      }
    } catch {
      reason = "\(error)"
      failed?("transport")
    }
    try? await spool.failed(entry.id, error: reason)
    return (.retry, reason)
  }

  /// Waits the backoff after `failures` failed attempts in a row; false when cancelled meanwhile.
  func pause(_ failures: Int) async -> Bool {
    do {
      try await Task.sleep(for: backoff(failures))
      return true
    } catch {
      return false
    }
  }

  /// `initialBackoff × 2^(failures−1)`, at most `maxBackoff`.
  public func backoff(_ failures: Int) -> Duration {
    var wait = initialBackoff
    for _ in 1..<max(failures, 1) where wait < maxBackoff { wait *= 2 }
    return min(wait, maxBackoff)
  }
}
