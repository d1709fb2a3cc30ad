import BeaconCore
import FuzzSupport
import HTTP

// What a server's answer puts in front of the HTTP client's own code (libcurl parses the protocol itself):
// each line of the input as a response head line (HTTPHeadLine; a status line starts a new response), the
// response's header lookups and validators, every value as a Retry-After (HTTPRetryPolicy.retryAfter) and a
// Content-Range (HTTPContentRange), and the last Location as a URL made safe for messages (RedactedURL).
// Properties: a Retry-After wait is never negative; a redacted URL keeps no userinfo before its host.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  var status = 0
  var headers: [HTTPHeader] = []
  for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
    switch HTTPHeadLine(line) {
    case .status(let code):
      status = code
      headers = []
    case .field(let field): headers.append(field)
    case .other: break
    }
  }
  let response = HTTPResponse(status: status, headers: headers, effectiveURL: "http://127.0.0.1/")
  _ = response.validators
  _ = response.isNotModified
  for name in ["ETag", "Last-Modified", "Content-Range", "Retry-After", "Location"] { _ = response.header(name) }
  for field in headers {
    if let wait = HTTPRetryPolicy.retryAfter(field.value), wait < .zero {
      Fuzzer.fail("a negative Retry-After wait from '\(field.value)'", bytes)
    }
    _ = HTTPRetryPolicy().delay(afterFailedAttempts: 3, retryAfter: HTTPRetryPolicy.retryAfter(field.value))
    _ = HTTPContentRange.start(field.value)
  }
  if let location = response.header("Location") {
    // The part before the query: scheme, authority, path. Its authority must hold no `user:password@`.
    let head = RedactedURL(location).description.prefix { $0 != "?" }
    if let scheme = head.range(of: "://"), head[scheme.upperBound...].prefix(while: { $0 != "/" }).contains("@") {
      Fuzzer.fail("userinfo left in '\(head)'", bytes)
    }
  }
  return 0
}
