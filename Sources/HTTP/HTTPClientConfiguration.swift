/// Everything a `CurlHTTPClient` does the same for every request: TLS trust, timeouts, redirects, retries,
/// the body cap and the User-Agent. The defaults are the safe ones: TLS verified against the system
/// CAs, at most 5 redirects and never from https to http, abort below 1 kB/s for 30 s, a 1 hour overall cap.
///
/// Proxies: libcurl reads `http_proxy`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` itself when `proxy` is nil
/// (lower-case `http_proxy` only, as curl documents, so a CGI `HTTP_PROXY` header cannot redirect us).
public struct HTTPClientConfiguration: Sendable, Hashable {
  /// A PEM file of CA certificates to trust instead of the system's (a private CA, a test server).
  public var caFile: String?
  /// Turns certificate and host-name verification off. Only for test servers; the CLI spells it
  /// `--insecure-skip-tls-verify`.
  public var insecureSkipTLSVerify: Bool
  /// The longest wait for a TCP + TLS connection.
  public var connectTimeout: Duration
  /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedTime` is aborted (CURLOPT_LOW_SPEED_*).
  public var lowSpeedBytesPerSecond: Int
  public var lowSpeedTime: Duration
  /// The overall cap of one `fetch` or `download` call, retries and their waits included; nil for none.
  public var maxTime: Duration?
  /// Redirects followed (CURLOPT_MAXREDIRS). An https URL is only ever redirected to https.
  public var maxRedirects: Int
  /// The largest body accepted, in bytes: checked against Content-Length before the body and while it
  /// streams (a request's `maxBodyBytes` can only lower it).
  public var maxBodyBytes: Int64
  /// Sent as the User-Agent header, e.g. `beacon-provision/0.1.0`.
  public var userAgent: String
  /// When and how often a failed attempt is tried again.
  public var retry: HTTPRetryPolicy
  /// An explicit proxy URL (CURLOPT_PROXY); nil leaves libcurl to the environment variables.
  public var proxy: String?
  /// How the calling command spells the options an error's hint names.
  public var optionNames: HTTPOptionNames

  /// The default cap: 256 MiB, far above any beacon firmware package or catalogue.
  public static let defaultMaxBodyBytes: Int64 = 256 << 20

  public init(
    caFile: String? = nil, insecureSkipTLSVerify: Bool = false, connectTimeout: Duration = .seconds(30),
    lowSpeedBytesPerSecond: Int = 1024, lowSpeedTime: Duration = .seconds(30), maxTime: Duration? = .seconds(3600),
    maxRedirects: Int = 5, maxBodyBytes: Int64 = defaultMaxBodyBytes, userAgent: String = "beacon-provision",
    retry: HTTPRetryPolicy = HTTPRetryPolicy(), proxy: String? = nil, optionNames: HTTPOptionNames = .firmware
  ) {
    self.caFile = caFile
    self.insecureSkipTLSVerify = insecureSkipTLSVerify
    self.connectTimeout = connectTimeout
    self.lowSpeedBytesPerSecond = lowSpeedBytesPerSecond
    self.lowSpeedTime = lowSpeedTime
    self.maxTime = maxTime
    self.maxRedirects = maxRedirects
    self.maxBodyBytes = maxBodyBytes
    self.userAgent = userAgent
    self.retry = retry
    self.proxy = proxy
    self.optionNames = optionNames
  }

  /// `beacon-provision/<version>`, the version cut at its first character that is not visible ASCII: a header
  /// line must not carry a line break or a space (RFC 9110 §10.1.5, a product token). When the CLI passed its
  /// multi-line `--version` text here, every request's head broke and nginx answered 400.
  public static func userAgent(version: String) -> String {
    let token = version.unicodeScalars.prefix { $0.value > 0x20 && $0.value < 0x7F }
    return "beacon-provision/" + String(String.UnicodeScalarView(token))
  }
}

extension Duration {
  /// Whole milliseconds, for libcurl's `_MS` options (at least 1 for any positive duration).
  var curlMilliseconds: Int {
    let (seconds, attoseconds) = components
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    return self > .zero ? max(1, Int(clamping: milliseconds)) : 0
  }
}
