import Foundation
import JSON

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
  static func hint(forStatus status: Int, names: HTTPOptionNames = .firmware) -> String? {
    switch status {
    case 401, 403: "the server refuses this client: check the URL and any credentials it needs"
    case 404, 410: names.notFoundHint
    case 429: "the server is rate limiting: try again later"
    case 500...599: "the server failed: try again later"
    default: nil
    }
  }

  /// Whether a TLS handshake error is OpenSSL reading a plain-HTTP answer as a TLS record (its words for it
  /// vary by version: "wrong version number", "packet length too long", "http request").
  static func isPlainHTTPAnswer(_ message: String) -> Bool {
    let text = message.lowercased()
    return ["wrong version number", "packet length too long", "http request"].contains { text.contains($0) }
  }

  /// The server's own words in an error answer, for the reason: a JSON `{"error": {"message": …}}` (Google
  /// Cloud Endpoints, which the Info Manager's API is), `{"error": "…"}` or `{"message": …}`, else the first
  /// line of a short text body; control characters become spaces and the text is cut at 200 characters. Nil
  /// for an empty, binary or HTML body.
  static func serverMessage(_ body: [UInt8]) -> String? {
    guard !body.isEmpty, body.count <= 64 << 10, let text = String(validating: body, as: UTF8.self) else { return nil }
    var message: String?
    if let json = try? JSONFileDecoder(file: "answer", options: .wire).decode(ErrorBody.self, from: body) {
      message = json.error?.message ?? json.message
    } else if !text.lowercased().contains("<html") {
      message = text.split(whereSeparator: \.isNewline).first.map(String.init)
    }
    guard var shown = message?.trimmingCharacters(in: .whitespaces), !shown.isEmpty else { return nil }
    shown = String(shown.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    return shown.count > 200 ? String(shown.prefix(200)) + "…" : shown
  }
}

/// The error answers `HTTPClientError.serverMessage` reads.
private struct ErrorBody: Decodable {
  struct Detail: Decodable {
    var message: String?
    init(from decoder: any Decoder) throws {
      if let text = try? decoder.singleValueContainer().decode(String.self) {
        message = text
      } else {
        message = try decoder.container(keyedBy: Key.self).decodeIfPresent(String.self, forKey: .message)
      }
    }
    enum Key: String, CodingKey { case message }
  }
  var error: Detail?
  var message: String?
}
