/// Why an HTTP call failed, as one line: the URL without secrets, the HTTP status or libcurl's error text, and
/// what to try. `kind` lets callers and tests tell the failures apart without parsing text.
public struct HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: String, Sendable, Hashable {
    /// The server answered with an error status (≥ 400) and retries, if any, are spent.
    case status
    /// The certificate chain or host name did not verify, or the CA file could not be read.
    case tls
    /// No connection (refused, reset, unreachable, name not resolved, connect timeout, cut mid-body).
    case connection
    /// The transfer stayed below the low-speed limit for its whole window.
    case tooSlow
    /// The call ran past the configuration's overall cap.
    case timedOut
    /// The body is larger than the cap (by Content-Length, or while it streamed).
    case tooLarge
    /// A redirect to a scheme the origin may not go to (https → http), or past the redirect limit.
    case redirect
    /// A local file could not be read (`file://`) or written (a download's target).
    case file
    /// The calling task was cancelled.
    case cancelled
    /// Anything else libcurl reports.
    case other
  }

  public var kind: Kind
  /// The URL, with credentials and secret query values removed.
  public var url: String
  /// The final HTTP status, when a response arrived.
  public var status: Int?
  /// What happened: `HTTP 404` or libcurl's error text.
  public var reason: String
  /// What to try next; nil when there is nothing useful to say.
  public var hint: String?

  public init(kind: Kind, url: String, status: Int? = nil, reason: String, hint: String? = nil) {
    self.kind = kind
    self.url = url
    self.status = status
    self.reason = reason
    self.hint = hint
  }

  public var description: String {
    var line = "\(url): \(reason)"
    if let hint { line += " (\(hint))" }
    return line
  }
}

extension HTTPClientError {
  /// The hint for an error status: what a person can do about it.
  static func hint(forStatus status: Int) -> String? {
    switch status {
    case 401, 403: "the server refuses this client: check the URL and any credentials it needs"
    case 404, 410: "the file is not there: check the base URL (--catalog) and the file name"
    case 429: "the server is rate limiting: try again later"
    case 500...599: "the server failed: try again later"
    default: nil
    }
  }
}
