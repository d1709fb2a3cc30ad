import BeaconCore
import Fleet
import Foundation
import HTTP

/// `WebhookPoster` over libcurl (`HTTP.CurlHTTPClient`, a thread per transfer, never the cooperative
/// pool). The client itself does not retry (`HTTPRetryPolicy.none`): the spool's worker does, with the same
/// row and key, so a retry survives a restart. [I] 10 s to connect and 30 s per POST in all.
struct CurlWebhookPoster: WebhookPoster {
  let client: any HTTPClient
  /// `--webhook-header-file`'s headers (for every URL, and per URL prefix), after the monitor's own.
  let extraHeaders: WebhookHeaders

  init(caFile: String? = nil, insecureSkipTLSVerify: Bool = false, extraHeaders: WebhookHeaders = WebhookHeaders()) {
    self.extraHeaders = extraHeaders
    client = CurlHTTPClient(
      configuration: HTTPClientConfiguration(
        caFile: caFile, insecureSkipTLSVerify: insecureSkipTLSVerify, connectTimeout: .seconds(10),
        maxTime: .seconds(30), maxBodyBytes: 1 << 20,
        userAgent: HTTPClientConfiguration.userAgent(version: BuildStamp.version), retry: .none))
  }

  func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Int {
    let request = HTTPRequest(
      method: .post, url: url,
      headers: (headers + extraHeaders.headers(for: url)).map { HTTPHeader($0.name, $0.value) }, body: body)
    do {
      return try await client.fetch(request).status
    } catch let error as HTTPClientError where error.kind == .status && error.status != nil {
      return error.status!
    }
  }
}

/// The monitor's webhooks: spools each delivery (`WebhookSpool`) and runs one `WebhookDelivery` worker per
/// URL — those on the command line and in the events file, and any the spool still holds from an earlier
/// run — each woken when rows are spooled for it. While rows wait it reports the spool's depth every
/// `depthInterval` (an outage must not stay silent until the monitor exits). [I] 60 s: a line a minute
/// while a receiver is down, nothing while the spool is empty.
actor WebhookDispatch {
  let spool: WebhookSpool
  let poster: any WebhookPoster
  let warn: @Sendable (String) -> Void
  let depthInterval: Duration
  /// Told of each failed delivery, with its reason and count (`MonitorMetrics.webhookFailed`).
  let failed: (@Sendable (String, Int) -> Void)?
  private var wakers: [String: AsyncStream<Void>.Continuation] = [:]
  private var workers: [Task<Void, Never>] = []
  private var reporter: Task<Void, Never>?
  /// Rows dropped by the spool's bound during this run.
  private(set) var dropped = 0

  init(
    spool: WebhookSpool, poster: any WebhookPoster, depthInterval: Duration = .seconds(60),
    warn: @escaping @Sendable (String) -> Void, failed: (@Sendable (String, Int) -> Void)? = nil
  ) {
    self.failed = failed
    self.spool = spool
    self.poster = poster
    self.depthInterval = depthInterval
    self.warn = warn
  }

  /// Starts the workers for `urls` and for every URL with rows left in the spool, and the depth report. A
  /// URL left in the spool by an earlier version that no longer passes `WebhookURL` gets no worker (it
  /// would fail for ever): its rows are counted in a warning that says how to drop them.
  func start(urls: [String]) async {
    let left = (try? await spool.depths()) ?? []
    for (url, count) in left {
      if let problem = WebhookURL.problem(url) {
        warn(
          "\(count) spooled webhook event\(count == 1 ? "" : "s") will not be sent: \(problem); 'monitor spool drop --all' removes them"
        )
      }
    }
    for url in Set(urls + left.map(\.url)).sorted() where WebhookURL.problem(url) == nil { worker(url) }
    let spool = self.spool
    let warn = self.warn
    let interval = depthInterval
    reporter = Task {
      while !Task.isCancelled {
        do { try await Task.sleep(for: interval) } catch { return }
        guard let depths = try? await spool.depths(), !depths.isEmpty else { continue }
        let total = depths.reduce(0) { $0 + $1.count }
        let each = depths.map { "\(RedactedURL($0.url)) \($0.count)" }.joined(separator: ", ")
        warn("webhook spool: \(total) event\(total == 1 ? "" : "s") waiting (\(each))")
      }
    }
  }

  /// Spools deliveries and wakes their workers.
  func send(_ items: [WebhookDelivery.Item]) async {
    guard !items.isEmpty else { return }
    do {
      let n = try await spool.enqueue(items)
      if n > 0 {
        dropped += n
        failed?("spool_full", n)
        warn("the webhook spool is full (\(spool.limit) events): dropped the oldest \(n)")
      }
    } catch {
      warn("cannot spool webhook events in \(spool.journal.location): \(error)")
      failed?("spool_error", items.count)
      return
    }
    for url in Set(items.map(\.url)) { worker(url).yield() }
  }

  @discardableResult
  private func worker(_ url: String) -> AsyncStream<Void>.Continuation {
    if let waker = wakers[url] { return waker }
    let (signals, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    waker.yield()
    wakers[url] = waker
    var delivery = WebhookDelivery(spool: spool, poster: poster, warn: warn)
    if let failed { delivery.failed = { failed($0, 1) } }
    workers.append(Task { await delivery.run(url: url, wake: signals) })
    return waker
  }

  /// Lets the workers deliver what is spooled for up to `grace`, then stops them; returns how many rows
  /// are left for the next start.
  func finish(grace: Duration) async -> Int {
    reporter?.cancel()
    for waker in wakers.values { waker.finish() }
    let workers = self.workers
    let deadline = ContinuousClock.now + grace
    await withTaskGroup(of: Void.self) { group in
      group.addTask { for worker in workers { await worker.value } }
      group.addTask {
        try? await Task.sleep(until: deadline)
        for worker in workers { worker.cancel() }
      }
      await group.next()
      group.cancelAll()
    }
    for worker in workers { worker.cancel() }
    return (try? await spool.count()) ?? 0
  }
}
