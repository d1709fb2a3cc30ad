import Cloud
import Fleet
import Foundation

/// `WebhookPoster` over libcurl (`Cloud.CurlHTTPClient`, a thread per transfer, never the cooperative
/// pool). The client itself does not retry (`HTTPRetryPolicy.none`): the spool's worker does, with the same
/// row and key, so a retry survives a restart. [I] 10 s to connect and 30 s per POST in all.
struct CurlWebhookPoster: WebhookPoster {
  let client: any HTTPClient

  init(caFile: String? = nil, insecureSkipTLSVerify: Bool = false) {
    client = CurlHTTPClient(configuration: HTTPClientConfiguration(
      caFile: caFile, insecureSkipTLSVerify: insecureSkipTLSVerify, connectTimeout: .seconds(10), maxTime: .seconds(30), maxBodyBytes: 1 << 20,
      userAgent: HTTPClientConfiguration.userAgent(version: BeaconProvision.configuration.version), retry: .none))
  }

  func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Int {
    let request = HTTPRequest(method: .post, url: url, headers: headers.map { HTTPHeader($0.name, $0.value) }, body: body)
    do {
      return try await client.fetch(request).status
    } catch let error as HTTPClientError where error.kind == .status && error.status != nil {
      return error.status!
    }
  }
}

/// The monitor's webhooks: spools each delivery (`WebhookSpool`) and runs one `WebhookDelivery` worker per
/// URL — those on the command line and in the events file, and any the spool still holds from an earlier
/// run — each woken when rows are spooled for it.
actor WebhookDispatch {
  let spool: WebhookSpool
  let poster: any WebhookPoster
  let warn: @Sendable (String) -> Void
  private var wakers: [String: AsyncStream<Void>.Continuation] = [:]
  private var workers: [Task<Void, Never>] = []
  /// Rows dropped by the spool's bound during this run.
  private(set) var dropped = 0

  init(spool: WebhookSpool, poster: any WebhookPoster, warn: @escaping @Sendable (String) -> Void) {
    self.spool = spool
    self.poster = poster
    self.warn = warn
  }

  /// Starts the workers for `urls` and for every URL with rows left in the spool.
  func start(urls: [String]) async {
    let left = (try? await spool.urls()) ?? []
    for url in Set(urls + left).sorted() { worker(url) }
  }

  /// Spools deliveries and wakes their workers.
  func send(_ items: [WebhookDelivery.Item]) async {
    guard !items.isEmpty else { return }
    do {
      let n = try await spool.enqueue(items)
      if n > 0 {
        dropped += n
        warn("the webhook spool is full (\(spool.limit) events): dropped the oldest \(n)")
      }
    } catch {
      warn("cannot spool webhook events in \(spool.journal.location): \(error)")
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
    let delivery = WebhookDelivery(spool: spool, poster: poster, warn: warn)
    workers.append(Task { await delivery.run(url: url, wake: signals) })
    return waker
  }

  /// Lets the workers deliver what is spooled for up to `grace`, then stops them; returns how many rows
  /// are left for the next start.
  func finish(grace: Duration) async -> Int {
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
