import BeaconCore
import CCurl
import Foundation

/// What the client does after one attempt: return, retry (connection errors, 5xx but 501
/// and 505, 429 with its Retry-After), restart a download from zero (416, or a 206 at the wrong offset), or
/// fail with a one-line error that says what to try.
enum HTTPVerdict {
  case success
  case retry(HTTPClientError, retryAfter: Duration?)
  case restart
  case fail(HTTPClientError)

  init(
    _ outcome: TransferOutcome, request: HTTPRequest, redacted: RedactedURL, deadline: ContinuousClock.Instant?,
    isDownload: Bool,
    names: HTTPOptionNames = .firmware
  ) {
    let url = redacted.description
    func error(_ kind: HTTPClientError.Kind, _ reason: String, _ hint: String? = nil) -> HTTPClientError {
      HTTPClientError(
        kind: kind, url: url, status: outcome.status == 0 ? nil : outcome.status, reason: redacted.scrub(reason),
        hint: hint)
    }
    switch outcome.abort {
    case .cancelled?:
      self = .fail(error(.cancelled, "cancelled"))
      return
    case .tooLarge(let size)?:
      self = .fail(
        error(
          .tooLarge, "the body is larger than the limit of \(outcome.cap) bytes (\(size)+ bytes)", "is the URL right?"))
      return
    case .rangeMismatch?:
      self = .restart
      return
    case .fileWrite(let code)?:
      self = .fail(error(.file, "cannot write the download: \(String(cString: strerror(code)))", "check the disk"))
      return
    case nil: break
    }
    if outcome.code == CURLE_OK {
      let status = outcome.status
      // "HTTP 403: <the server's own message>" when it sent one (a download's error body is not kept).
      let statusReason = "HTTP \(status)" + (HTTPClientError.serverMessage(outcome.body).map { ": \($0)" } ?? "")
      if URLScheme(request.url) == .file || (200..<300).contains(status) || status == 304 {
        self = .success
      } else if status == 416 && isDownload {
        self = .restart
      } else if status == 429 || (500...599).contains(status) && status != 501 && status != 505 {
        let after = outcome.headers.last { $0.name.lowercased() == "retry-after" }.flatMap {
          HTTPRetryPolicy.retryAfter($0.value)
        }
        self = .retry(
          error(.status, statusReason, HTTPClientError.hint(forStatus: status, names: names)), retryAfter: after)
      } else if status == 400, URLScheme(request.url) == .http {
        // nginx and others answer plain HTTP sent to their TLS port with 400 (and an HTML page).
        self = .fail(error(.status, statusReason, "if this port speaks HTTPS, use an https:// URL"))
      } else {
        self = .fail(error(.status, statusReason, HTTPClientError.hint(forStatus: status, names: names)))
      }
      return
    }
    let message = outcome.curlMessage
    switch outcome.code {
    case CURLE_SSL_CONNECT_ERROR where HTTPClientError.isPlainHTTPAnswer(message):
      // TLS to a port that speaks plain HTTP: OpenSSL reads "HTTP/1.1 400" as a TLS record. No CA file helps.
      self = .fail(
        error(.tls, message, "the server speaks plain HTTP on this port: use an http:// URL or the server's TLS port"))
    case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM:
      self = .fail(error(.tls, message, names.tlsHint))
    case CURLE_SSL_CACERT_BADFILE:
      self = .fail(error(.tls, message, names.caFileHint))
    case CURLE_TOO_MANY_REDIRECTS:
      self = .fail(error(.redirect, message, "the server redirects in a loop or too often"))
    case CURLE_UNSUPPORTED_PROTOCOL where outcome.redirectURL != nil || outcome.effectiveURL != request.url:
      let target = outcome.redirectURL.map { RedactedURL($0).description } ?? "another scheme"
      self = .fail(error(.redirect, "redirect to \(target) refused", "an https URL is never followed to http"))
    case CURLE_FILESIZE_EXCEEDED:
      self = .fail(error(.tooLarge, "the body is larger than the limit of \(outcome.cap) bytes", "is the URL right?"))
    case CURLE_FILE_COULDNT_READ_FILE:
      self = .fail(error(.file, message, "check the path of the file:// URL"))
    case CURLE_OPERATION_TIMEDOUT:
      if !outcome.connected {
        self = .retry(error(.connection, message, names.connectHint), retryAfter: nil)
      } else if let deadline, ContinuousClock.now >= deadline - .milliseconds(200) {
        self = .fail(error(.timedOut, message, names.timedOutHint))
      } else {
        self = .fail(
          error(.tooSlow, message, "the transfer stayed below the low-speed limit; try a better link or later"))
      }
    case CURLE_PARTIAL_FILE where outcome.status != 0, CURLE_RECV_ERROR where outcome.status != 0:
      // The answer began and the connection closed before its end: the address and the network are fine.
      self = .retry(error(.connection, message, Self.cutHint(outcome, isDownload: isDownload)), retryAfter: nil)
    case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SEND_ERROR,
      CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
      self = .retry(
        error(.connection, message, "check the address, the network and any proxy variables"), retryAfter: nil)
    default:
      self = .fail(error(.other, message))
    }
  }

  /// What to do about an answer cut before its end (the fault matrix's "server drops mid-body" was told to
  /// check the address and the network, which had just served the headers): run again — a download keeps
  /// what arrived and resumes there [I: the firmware cache keeps a non-empty `.part`] — and, if every try
  /// is cut, look at the server or a proxy between.
  static func cutHint(_ outcome: TransferOutcome, isDownload: Bool) -> String {
    let again =
      isDownload
      ? "run the command again: the download resumes from the \(outcome.fileSize) bytes that arrived"
      : "try again"
    return "the server closed the connection before the whole answer arrived; \(again); "
      + "if it is cut every time, check the server and any proxy between"
  }
}
