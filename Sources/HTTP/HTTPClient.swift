/// The HTTP edge of beacon-provision: everything that fetches from a server (firmware catalogues and packages,
/// vendor-cloud APIs, webhooks) goes through this protocol. The live implementation is libcurl
/// (`CurlHTTPClient`); tests of pure code above it may use a fake, tests of the client itself use real servers.
///
/// One client value carries its configuration (TLS trust, timeouts, retries, caps, User-Agent); a request says
/// only what differs per request. Implementations must never run blocking transfers on the cooperative pool.
public protocol HTTPClient: Sendable {
  /// Fetches a response body into memory (catalogues, API answers). Redirects, retries and the size cap of the
  /// client's configuration apply (`request.maxBodyBytes` lowers the cap). A 304 answer to a conditional
  /// request is returned as a response with status 304 and an empty body, not thrown. Other statuses ≥ 400 are
  /// thrown as `HTTPClientError` once retries are spent.
  func fetch(_ request: HTTPRequest) async throws -> HTTPResponse

  /// Streams a response body into the file at `path`. When the file already holds a prefix (an interrupted
  /// earlier download) it asks for the rest with a Range request, and starts over cleanly when the server
  /// ignores the Range. The returned response's `body` is empty; `bytesWritten` is the file's final size.
  /// `progress` is called from the transfer's thread, at most a few times a second.
  func download(
    _ request: HTTPRequest, to path: String, progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) async throws -> HTTPResponse

  /// `download`, with every body byte written to the file also shown to `observer`, in the order written,
  /// with its offset in the file (a resumed download starts past zero; a restarted one at zero again), so
  /// the caller can hash while receiving rather than read the file again.
  func download(
    _ request: HTTPRequest, to path: String, observer: any DownloadObserver,
    progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) async throws -> HTTPResponse
}

extension HTTPClient {
  /// A client that cannot show the bytes downloads as usual; the observer sees nothing (and so must not
  /// claim to have seen the whole file).
  public func download(
    _ request: HTTPRequest, to path: String, observer: any DownloadObserver,
    progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) async throws -> HTTPResponse {
    try await download(request, to: path, progress: progress)
  }
}

/// Sees a download's body bytes as they are written (`HTTPClient.download(_:to:observer:progress:)`).
/// Called on the transfer's own thread, one call at a time, never on the cooperative pool: it may do
/// CPU work such as hashing.
public protocol DownloadObserver: AnyObject, Sendable {
  func wrote(_ bytes: UnsafeRawBufferPointer, at offset: Int64)
}

/// One HTTP request.
public struct HTTPRequest: Sendable, Hashable {
  public enum Method: String, Sendable, Hashable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
  }

  public var method: Method
  /// `http://`, `https://` or `file://`.
  public var url: String
  /// Extra request headers, in order (the client adds User-Agent and Accept-Encoding itself).
  public var headers: [HTTPHeader]
  /// The request body (POST/PUT), sent as is.
  public var body: [UInt8]
  /// Validators from an earlier response: sent as If-None-Match / If-Modified-Since.
  public var conditional: HTTPValidators?
  /// A per-request body cap in bytes, below the client's own; checked against Content-Length before the body
  /// and while it streams.
  public var maxBodyBytes: Int?

  public init(
    method: Method = .get, url: String, headers: [HTTPHeader] = [], body: [UInt8] = [],
    conditional: HTTPValidators? = nil, maxBodyBytes: Int? = nil
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.conditional = conditional
    self.maxBodyBytes = maxBodyBytes
  }
}

/// One header line; names compare case-insensitively where it matters (`HTTPResponse.header(_:)`).
public struct HTTPHeader: Sendable, Hashable {
  public var name: String
  public var value: String
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// The validators a server gave a response (RFC 9110 §8.8), kept with a cached copy for conditional GETs.
public struct HTTPValidators: Sendable, Hashable, Codable {
  public var etag: String?
  public var lastModified: String?
  public init(etag: String? = nil, lastModified: String? = nil) {
    self.etag = etag
    self.lastModified = lastModified
  }
  public var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// A response: the final status after redirects, its headers, and (for `fetch`) its decoded body.
public struct HTTPResponse: Sendable, Hashable {
  public var status: Int
  public var headers: [HTTPHeader]
  public var body: [UInt8]
  /// The URL that answered, after redirects (credentials and query secrets removed).
  public var effectiveURL: String
  /// For `download`: the size of the file written.
  public var bytesWritten: Int64

  public init(
    status: Int, headers: [HTTPHeader] = [], body: [UInt8] = [], effectiveURL: String, bytesWritten: Int64 = 0
  ) {
    self.status = status
    self.headers = headers
    self.body = body
    self.effectiveURL = effectiveURL
    self.bytesWritten = bytesWritten
  }

  /// The last value of a header, by case-insensitive name.
  public func header(_ name: String) -> String? {
    headers.last { $0.name.lowercased() == name.lowercased() }?.value
  }

  /// 304 Not Modified: the cached copy the request's validators came from is current.
  public var isNotModified: Bool { status == 304 }

  /// The validators to store with this response's body for the next conditional request.
  public var validators: HTTPValidators { HTTPValidators(etag: header("ETag"), lastModified: header("Last-Modified")) }
}

/// Progress of a download, for a terminal progress line (bytes, rate, ETA).
public struct HTTPTransferProgress: Sendable, Hashable {
  /// Bytes in the file so far (including a resumed prefix).
  public var bytes: Int64
  /// The whole size when the server said it.
  public var total: Int64?
  /// Bytes per second of this transfer so far.
  public var bytesPerSecond: Double

  public init(bytes: Int64, total: Int64?, bytesPerSecond: Double) {
    self.bytes = bytes
    self.total = total
    self.bytesPerSecond = bytesPerSecond
  }
}
