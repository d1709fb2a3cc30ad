import CCurl
import Foundation
import OwnThreads
import Synchronization

/// One libcurl easy transfer: the handle, its options and the callbacks' state. It runs start to end on one
/// dedicated thread (`perform()` blocks), so nothing of it touches the cooperative pool.
///
/// `@unchecked Sendable`, proven: the mutable fields are written only by libcurl's callbacks, which run on the
/// thread inside `perform()`; the creating task hands the object to that thread before `perform()` starts and
/// reads nothing until the thread has resumed its continuation with the outcome (which orders every write
/// before the read). The one field touched from elsewhere, `cancelled`, is an `Atomic`.
final class CurlAttempt: @unchecked Sendable {
  let request: HTTPRequest
  let configuration: HTTPClientConfiguration
  let sink: TransferSink
  let cap: Int64
  let timeout: Duration?
  let progress: (@Sendable (HTTPTransferProgress) -> Void)?
  /// Shown every byte written to the file, with its offset (a download's hash while receiving).
  let observer: (any DownloadObserver)?
  let cancelled = Atomic<Bool>(false)
  /// libcurl's receive buffer (CURLOPT_BUFFERSIZE) for every transfer. At libcurl's default, 16 KiB, a 50 MiB
  /// download from nginx on loopback took 3,200 recv calls and ran at about 0.90 of the `curl` command line
  /// (which asks for 100 KiB); at 512 KiB it takes about 100 and runs faster than the command line
  /// (`provision-bench http-download`, whose goal is ≥ 0.95 of curl's throughput). The write callback still gets at
  /// most 16 KiB at a time (CURL_MAX_WRITE_SIZE). One such buffer per transfer in flight.
  static let receiveBufferBytes = 512 * 1024

  private var handle: UnsafeMutableRawPointer?
  private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
  private var headers: [HTTPHeader] = []
  private var status = 0
  private var body: [UInt8] = []
  private var fileSize: Int64 = 0
  private var bodyStarted = false
  private var discarding = false
  private var abort: TransferAbort?
  private var received: Int64 = 0
  private let began = ContinuousClock.now
  private var lastReport = ContinuousClock.now

  init(
    request: HTTPRequest, configuration: HTTPClientConfiguration, sink: TransferSink, timeout: Duration?,
    observer: (any DownloadObserver)? = nil, progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) {
    self.observer = observer
    self.request = request
    self.configuration = configuration
    self.sink = sink
    self.timeout = timeout
    self.progress = progress
    cap = min(configuration.maxBodyBytes, request.maxBodyBytes.map(Int64.init) ?? Int64.max)
    errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    if case .file(_, let resumeFrom) = sink { fileSize = resumeFrom }
  }

  deinit { errorBuffer.deallocate() }

  /// Runs the transfer to its end. Blocking: call it only on the attempt's own thread.
  func perform() -> TransferOutcome {
    guard let handle = curl_easy_init() else {
      return outcome(code: CURLE_FAILED_INIT, connected: false)
    }
    self.handle = handle
    defer {
      curl_easy_cleanup(handle)
      self.handle = nil
    }
    var list: UnsafeMutablePointer<curl_slist>?
    defer { curl_slist_free_all(list) }
    for line in headerLines() { list = curl_slist_append(list, line) }
    configure(handle, headers: list)
    let code = curl_easy_perform(handle)
    var connectTime = 0.0
    _ = bp_curl_getinfo_double(handle, CURLINFO_CONNECT_TIME, &connectTime)
    var response = 0
    _ = bp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &response)
    if response != 0 { status = response }
    return outcome(code: code, connected: connectTime > 0 || status != 0)
  }

  private func outcome(code: CURLcode, connected: Bool) -> TransferOutcome {
    var effective = request.url
    var redirect: String?
    if let handle {
      var text: UnsafeMutablePointer<CChar>?
      if bp_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &text) == CURLE_OK, let text {
        effective = String(cString: text)
      }
      text = nil
      if bp_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &text) == CURLE_OK, let text {
        redirect = String(cString: text)
      }
    }
    let message = String(cString: errorBuffer)
    return TransferOutcome(
      code: code, curlMessage: message.isEmpty ? String(cString: curl_easy_strerror(code)) : message, status: status,
      headers: headers, body: body, effectiveURL: effective, redirectURL: redirect, connected: connected,
      fileSize: fileSize, abort: abort, cap: cap)
  }

  private func headerLines() -> [String] {
    var lines = request.headers.map { "\($0.name): \($0.value)" }
    if let etag = request.conditional?.etag { lines.append("If-None-Match: \(etag)") }
    if let date = request.conditional?.lastModified { lines.append("If-Modified-Since: \(date)") }
    return lines
  }

  private func configure(_ h: UnsafeMutableRawPointer, headers list: UnsafeMutablePointer<curl_slist>?) {
    let context = Unmanaged.passUnretained(self).toOpaque()
    let origin = URLScheme(request.url)
    _ = bp_curl_setopt_string(h, CURLOPT_URL, request.url)
    _ = bp_curl_setopt_long(h, CURLOPT_NOSIGNAL, 1)
    _ = bp_curl_setopt_long(h, CURLOPT_BUFFERSIZE, Self.receiveBufferBytes)
    _ = bp_curl_setopt_pointer(h, CURLOPT_ERRORBUFFER, errorBuffer)
    _ = bp_curl_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https,file")
    _ = bp_curl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 1)
    _ = bp_curl_setopt_long(h, CURLOPT_MAXREDIRS, configuration.maxRedirects)
    _ = bp_curl_setopt_string(h, CURLOPT_REDIR_PROTOCOLS_STR, origin == .https ? "https" : "http,https")
    _ = bp_curl_setopt_string(h, CURLOPT_USERAGENT, configuration.userAgent)
    _ = bp_curl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
    _ = bp_curl_setopt_long(h, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedBytesPerSecond)
    _ = bp_curl_setopt_long(h, CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.lowSpeedTime.components.seconds)))
    if let timeout { _ = bp_curl_setopt_long(h, CURLOPT_TIMEOUT_MS, timeout.curlMilliseconds) }
    if cap < Int64.max { _ = bp_curl_setopt_offset(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(cap)) }
    if let caFile = configuration.caFile { _ = bp_curl_setopt_string(h, CURLOPT_CAINFO, caFile) }
    if configuration.insecureSkipTLSVerify {
      _ = bp_curl_setopt_long(h, CURLOPT_SSL_VERIFYPEER, 0)
      _ = bp_curl_setopt_long(h, CURLOPT_SSL_VERIFYHOST, 0)
    }
    if let proxy = configuration.proxy { _ = bp_curl_setopt_string(h, CURLOPT_PROXY, proxy) }
    if list != nil { _ = bp_curl_setopt_slist(h, CURLOPT_HTTPHEADER, list) }
    switch request.method {
    case .get: break
    case .head: _ = bp_curl_setopt_long(h, CURLOPT_NOBODY, 1)
    case .post, .put:
      if request.method == .put { _ = bp_curl_setopt_string(h, CURLOPT_CUSTOMREQUEST, "PUT") }
      // [I] A 301, 302 or 303 answer to a POST is followed with the same POST and body (libcurl's default
      // turns it into a bodiless GET, RFC 9110 §15.4). For a webhook the 2xx at the end must mean the event
      // arrived; a GET that succeeds would mark a delivery done that never happened.
      _ = bp_curl_setopt_long(
        h, CURLOPT_POSTREDIR, Int(CURL_REDIR_POST_301 | CURL_REDIR_POST_302 | CURL_REDIR_POST_303))
      _ = bp_curl_setopt_offset(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
      request.body.withUnsafeBytes { bytes in
        _ = bp_curl_setopt_pointer(h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
      }
    }
    switch sink {
    case .memory: _ = bp_curl_setopt_string(h, CURLOPT_ACCEPT_ENCODING, "")  // every encoding libcurl decodes
    case .file(_, let resumeFrom): if resumeFrom > 0 { _ = bp_curl_setopt_string(h, CURLOPT_RANGE, "\(resumeFrom)-") }
    }
    _ = bp_curl_setopt_callback(h, CURLOPT_HEADERFUNCTION) { data, size, count, context in
      guard let data, let context else { return 0 }
      Unmanaged<CurlAttempt>.fromOpaque(context).takeUnretainedValue().header(data, size * count)
      return size * count
    }
    _ = bp_curl_setopt_pointer(h, CURLOPT_HEADERDATA, context)
    _ = bp_curl_setopt_callback(h, CURLOPT_WRITEFUNCTION) { data, size, count, context in
      guard let data, let context else { return 0 }
      return Unmanaged<CurlAttempt>.fromOpaque(context).takeUnretainedValue().write(data, size * count)
    }
    _ = bp_curl_setopt_pointer(h, CURLOPT_WRITEDATA, context)
    _ = bp_curl_setopt_long(h, CURLOPT_NOPROGRESS, 0)
    _ = bp_curl_setopt_xferinfo(h, CURLOPT_XFERINFOFUNCTION) { context, total, now, _, _ in
      guard let context else { return 0 }
      return Unmanaged<CurlAttempt>.fromOpaque(context).takeUnretainedValue().tick(total: Int64(total), now: Int64(now))
    }
    _ = bp_curl_setopt_pointer(h, CURLOPT_XFERINFODATA, context)
  }

  /// One header line (`HTTPHeadLine`). A status line starts a new response (a redirect's or a proxy's came
  /// before).
  private func header(_ data: UnsafeMutablePointer<CChar>, _ count: Int) {
    switch HTTPHeadLine(UnsafeRawBufferPointer(start: data, count: count)) {
    case .status(let code):
      headers = []
      status = code
    case .field(let field): headers.append(field)
    case .other: break
    }
  }

  /// Body bytes of the final response.
  private func write(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
    if !bodyStarted {
      bodyStarted = true
      if !startBody() { return 0 }
    }
    received += Int64(count)
    if discarding {
      if body.count < 4096 { body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(count, 4096))) }
      return count
    }
    switch sink {
    case .memory:
      guard Int64(body.count) + Int64(count) <= cap else { return stop(.tooLarge(Int64(body.count) + Int64(count))) }
      body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
    case .file(let descriptor, _):
      guard fileSize + Int64(count) <= cap else { return stop(.tooLarge(fileSize + Int64(count))) }
      var written = 0
      while written < count {
        let n = Interrupted.retry {
          pwrite(descriptor, data + written, count - written, off_t(fileSize) + off_t(written))
        }
        if n < 0 { return stop(.fileWrite(errno: errno)) }
        written += n
      }
      observer?.wrote(UnsafeRawBufferPointer(start: data, count: count), at: fileSize)
      fileSize += Int64(count)
    }
    return count
  }

  /// Decides, at the first body byte, where the body goes: an error status's body is kept short for the
  /// message; a download's 200 replaces the file (the server ignored the Range), its 206 appends after checking
  /// Content-Range. False when the attempt must stop.
  private func startBody() -> Bool {
    let scheme = URLScheme(request.url)
    let ok = scheme == .file ? status == 0 || status == 200 : (200..<300).contains(status)
    guard ok else {
      discarding = true
      return true
    }
    guard case .file(let descriptor, let resumeFrom) = sink else { return true }
    if status == 206 {
      let start = headers.last { $0.name.lowercased() == "content-range" }.flatMap { HTTPContentRange.start($0.value) }
      if start != resumeFrom {
        abort = .rangeMismatch
        return false
      }
    } else {
      guard ftruncate(descriptor, 0) == 0 else {
        abort = .fileWrite(errno: errno)
        return false
      }
      fileSize = 0
    }
    return true
  }

  private func stop(_ reason: TransferAbort) -> Int {
    abort = reason
    return 0
  }

  /// libcurl's progress callback: cancellation, and a progress report at most five times a second.
  private func tick(total: Int64, now: Int64) -> Int32 {
    if cancelled.load(ordering: .relaxed) {
      abort = .cancelled
      return 1
    }
    guard let progress, bodyStarted, !discarding else { return 0 }
    let clock = ContinuousClock.now
    guard clock - lastReport >= .milliseconds(200) else { return 0 }
    lastReport = clock
    let elapsed = Double((clock - began).components.seconds) + Double((clock - began).components.attoseconds) / 1e18
    let base: Int64 = if case .file(_, let resumeFrom) = sink, status == 206 { resumeFrom } else { 0 }
    progress(
      HTTPTransferProgress(
        bytes: base + now, total: total > 0 ? base + total : nil,
        bytesPerSecond: elapsed > 0 ? Double(received) / elapsed : 0))
    return 0
  }
}
