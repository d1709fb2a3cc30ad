import BeaconCore
import CCurl
import Foundation
import OwnThreads

/// The live `HTTPClient`: libcurl's easy interface, one dedicated thread per transfer.
///
/// Why a thread per transfer and not one multi handle on a shared thread: the tool makes few transfers at a
/// time (a catalogue, a handful of packages per campaign, an API call), each blocking only its own thread,
/// and the easy interface keeps the per-transfer state in one object with no event loop to get wrong. A
/// multi handle becomes worth it when hundreds of transfers run at once (webhook fan-out); the `HTTPClient`
/// protocol hides the choice.
///
/// Per call: attempts until one succeeds or fails for good (`HTTPRetryPolicy`), all within the overall cap.
/// A download resumes from what its file already holds with a Range request on every attempt, so a body cut
/// mid-way is continued, not restarted; a server that ignores the Range (200) gets the file rewritten from
/// the start; a 416 restarts once from zero. A task cancelled mid-transfer aborts it within libcurl's
/// progress interval.
public struct CurlHTTPClient: HTTPClient {
  public let configuration: HTTPClientConfiguration

  public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
    _ = CurlGlobal.initialised
    self.configuration = configuration
  }

  public func fetch(_ request: HTTPRequest) async throws -> HTTPResponse {
    try await run(request, download: nil, progress: nil)
  }

  public func download(
    _ request: HTTPRequest, to path: String, progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) async throws -> HTTPResponse {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw HTTPClientError(
        kind: .file, url: RedactedURL(request.url).description,
        reason: "cannot write \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    return try await run(request, download: descriptor, progress: progress)
  }

  public func download(
    _ request: HTTPRequest, to path: String, observer: any DownloadObserver,
    progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) async throws -> HTTPResponse {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw HTTPClientError(
        kind: .file, url: RedactedURL(request.url).description,
        reason: "cannot write \(path): \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    return try await run(request, download: descriptor, observer: observer, progress: progress)
  }

  private func run(
    _ request: HTTPRequest, download descriptor: Int32?, observer: (any DownloadObserver)? = nil,
    progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) async throws -> HTTPResponse {
    let redacted = RedactedURL(request.url)
    let deadline = configuration.maxTime.map { ContinuousClock.now + $0 }
    var failures = 0
    var restarted = false
    /// Where the last transfer that ended short stopped (its file size), for the wording below.
    var endedShortAt: Int64?
    while true {
      let remaining = deadline.map { $0 - ContinuousClock.now }
      if let remaining, remaining <= .zero {
        throw HTTPClientError(
          kind: .timedOut, url: redacted.description, reason: "no answer within the overall limit",
          hint: configuration.optionNames.timedOutHint)
      }
      if Task.isCancelled { throw HTTPClientError(kind: .cancelled, url: redacted.description, reason: "cancelled") }
      let sink: TransferSink =
        descriptor.map { .file(descriptor: $0, resumeFrom: Self.resumeOffset($0, url: request.url)) } ?? .memory
      let attempt = CurlAttempt(
        request: request, configuration: configuration, sink: sink, timeout: remaining, observer: observer,
        progress: progress)
      let outcome = await Self.perform(attempt)
      let verdict = HTTPVerdict(
        outcome, request: request, redacted: redacted, deadline: deadline, isDownload: descriptor != nil,
        names: configuration.optionNames)
      switch verdict {
      case .success:
        return HTTPResponse(
          status: outcome.status == 0 ? 200 : outcome.status, headers: outcome.headers,
          body: descriptor == nil ? outcome.body : [],
          effectiveURL: RedactedURL(outcome.effectiveURL).description,
          bytesWritten: descriptor == nil ? 0 : outcome.fileSize)
      case .fail(let error):
        if case .tooLarge = outcome.abort, let descriptor { _ = ftruncate(descriptor, 0) }
        throw error
      case .restart:
        if let descriptor { _ = ftruncate(descriptor, 0) }
        guard !restarted else {
          // Every transfer stopped at the same size and the rest was refused (416): the whole file arrived and
          // the server announced more than it has (its Content-Length is wrong), not mismatched ranges.
          if outcome.status == 416, let size = endedShortAt {
            throw HTTPClientError(
              kind: .other, url: redacted.description, status: 416,
              reason:
                "each transfer ends at \(size) bytes while the server announces more (Content-Length), and it refuses a request for the rest (HTTP 416)",
              hint: "the server's length for this file is wrong; check the file on the server")
          }
          throw verdictError(outcome, redacted, "the server's ranges do not match the file")
        }
        restarted = true
      case .retry(let error, let retryAfter):
        if outcome.code == CURLE_PARTIAL_FILE, descriptor != nil { endedShortAt = outcome.fileSize }
        failures += 1
        guard failures < configuration.retry.maxAttempts else { throw error }
        guard let wait = configuration.retry.delay(afterFailedAttempts: failures, retryAfter: retryAfter) else {
          var refused = error
          refused.hint =
            "the server asks to wait \(retryAfter.map { "\($0.components.seconds) s" } ?? "longer"); try again later"
          throw refused
        }
        if let deadline, ContinuousClock.now + wait >= deadline { throw error }
        do { try await Task.sleep(for: wait) } catch {
          throw HTTPClientError(kind: .cancelled, url: redacted.description, reason: "cancelled")
        }
      }
    }
  }

  private func verdictError(_ outcome: TransferOutcome, _ redacted: RedactedURL, _ reason: String) -> HTTPClientError {
    HTTPClientError(kind: .other, url: redacted.description, status: outcome.status, reason: reason)
  }

  /// Where a download resumes: the file's size; a `file://` source is always read from the start.
  private static func resumeOffset(_ descriptor: Int32, url: String) -> Int64 {
    guard URLScheme(url) != .file else { return 0 }
    var info = stat()
    return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
  }

  /// Runs the attempt on its own thread; cancelling the calling task aborts the transfer.
  private static func perform(_ attempt: CurlAttempt) async -> TransferOutcome {
    await withTaskCancellationHandler {
      await OwnThread.run("beacon-provision.http") { attempt.perform() }
    } onCancel: {
      attempt.cancelled.store(true, ordering: .relaxed)
    }
  }
}

/// `curl_global_init` exactly once, before the first handle (it is not thread-safe on older libcurls).
enum CurlGlobal {
  static let initialised: Bool = bp_curl_global_init() == CURLE_OK
}
