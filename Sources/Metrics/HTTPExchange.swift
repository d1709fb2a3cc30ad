/// The little of HTTP/1.1 (RFC 9112) the metrics server speaks: a request head in, one response out, then
/// the connection closes (`Connection: close`, no keep-alive, no body read). Pure: bytes in, bytes out.
public enum HTTPExchange {
  /// [I] 8 KiB for the request line and headers (what Prometheus, curl and browsers send fits in well
  /// under 1 KiB); more is answered 431 without reading further.
  public static let headLimit = 8192

  /// A response: status, media type and body (a HEAD answer leaves the body out, its length kept).
  public struct Response: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: String
    public var headers: [String] = []

    public init(status: Int, contentType: String = "text/plain; charset=utf-8", body: String, headers: [String] = []) {
      self.status = status
      self.contentType = contentType
      self.body = body
      self.headers = headers
    }

    /// The `/healthz` answer of a long-running command: 200 "ok" when nothing is wrong, else 503 with the
    /// reasons, one line.
    public static func health(_ problems: [String]) -> Response {
      Response(
        status: problems.isEmpty ? 200 : 503, body: (problems.isEmpty ? "ok" : problems.joined(separator: "; ")) + "\n")
    }

    static func plain(_ status: Int, _ text: String, headers: [String] = []) -> Response {
      Response(status: status, body: text + "\n", headers: headers)
    }
  }

  /// Where a complete head ends (after its blank line) in `bytes`, if it does yet.
  static func headEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for i in 3..<bytes.count where bytes[i] == 10 && bytes[i - 1] == 13 && bytes[i - 2] == 10 && bytes[i - 3] == 13 {
      return i + 1
    }
    return nil
  }

  /// The answer to a request head, routed by path: 400 for a malformed request line, 405 (with `Allow`) for
  /// any method but GET and HEAD, 404 for an unknown path. The query string is ignored.
  static func answer(head: [UInt8], routes: [String: @Sendable () -> Response]) -> (Response, isHead: Bool) {
    let text = String(decoding: head, as: UTF8.self)
    let line = text.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    let parts = line.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0", parts[1].hasPrefix("/") else {
      return (.plain(400, "bad request"), false)
    }
    let method = parts[0]
    guard method == "GET" || method == "HEAD" else {
      return (.plain(405, "method not allowed: GET or HEAD", headers: ["Allow: GET, HEAD"]), false)
    }
    let path = String(parts[1].prefix { $0 != "?" })
    guard let route = routes[path] else {
      return (.plain(404, "not found: \(routes.keys.sorted().joined(separator: ", "))"), method == "HEAD")
    }
    return (route(), method == "HEAD")
  }

  /// The response's bytes: status line, Content-Type, Content-Length, Connection: close, body unless HEAD.
  static func bytes(_ response: Response, isHead: Bool) -> [UInt8] {
    let body = Array(response.body.utf8)
    var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
    head += "Content-Type: \(response.contentType)\r\nContent-Length: \(body.count)\r\n"
    head += "Cache-Control: no-store\r\nConnection: close\r\n"
    for line in response.headers { head += line + "\r\n" }
    head += "\r\n"
    return Array(head.utf8) + (isHead ? [] : body)
  }

  static func reason(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 400: "Bad Request"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 431: "Request Header Fields Too Large"
    case 503: "Service Unavailable"
    default: "Status"
    }
  }
}
