import BeaconCore
import HTTP
import InfoManager

/// The live blukii Info Manager client (docs/protocols/info-manager.md): the request shapes of `InfoManagerEndpoints`
/// sent through an `HTTPClient` (libcurl in the tool, the same client against a loopback server in tests),
/// answers decoded by `InfoManagerResponses`, states from `BatchResolution`.
///
/// What counts as "not reachable" (UNRESOLVED, or CACHED from a fresh cache): no connection, a transfer too
/// slow or past the overall time cap, and 5xx answers [I]. A 4xx answer (a wrong URL, API key or
/// credentials), a TLS failure and a malformed body are errors of the whole resolve: they would not go away
/// by themselves, so they are reported instead of being hidden as UNRESOLVED; the cache is left as it was.
public struct InfoManagerClient: Sendable {
  public var endpoints: InfoManagerEndpoints
  public var credentials: InfoManagerCredentials?
  /// `GetBlukiisInfoData.appLabel` (the SDK's default "blukii").
  public var appLabel: String
  /// `GetBlukiisInfoData.deviceId`: who asks.
  public var deviceId: String
  public var http: any HTTPClient

  public init(
    endpoints: InfoManagerEndpoints, credentials: InfoManagerCredentials?, appLabel: String = "blukii",
    deviceId: String = "beacon-provision", http: any HTTPClient
  ) {
    self.endpoints = endpoints
    self.credentials = credentials
    self.appLabel = appLabel
    self.deviceId = deviceId
    self.http = http
  }

  /// Resolves `ids` in one request (none when every ID is served from the cache). Throws `InfoManagerFailure`:
  /// always for a refused or malformed answer, and for an unreachable server when the resolution is a single
  /// one (as in the SDK).
  public func resolve(
    _ ids: [String], with resolution: BatchResolution, cache: inout ResolveCache, now: @Sendable () -> Double
  ) async throws -> [ResolveResult] {
    var resolution = resolution
    resolution.cacheScope = cacheScope
    let plan = resolution.plan(ids, cache: cache, now: now())
    // Every ID served from the cache: no request (the plan's cached results are the answer).
    guard !plan.ask.isEmpty else { return resolution.unreachable(plan, reason: "") }
    let points: [InfoPoint]
    do {
      let call = endpoints.getBlukiisInfo(ids: plan.ask, appLabel: appLabel, deviceId: deviceId)
      let body = try await send(call)
      points = try Self.decode { () throws(InfoManagerResponseError) in
        try InfoManagerResponses.infoPoints(body, source: RedactedURL(call.url).description)
      }
    } catch InfoManagerFailure.unreachable(let reason) where !resolution.single {
      return resolution.unreachable(plan, reason: reason)
    }
    return resolution.answered(plan, points: points, cache: &cache, now: now())
  }

  /// Whose answers a cached entry is (`ResolveCache.key(scope:source:id:)`): the server's root URL (scheme
  /// and host lower-cased, no trailing `/`), a digest of the API key and the user name. The key itself is
  /// never written: only its 64-bit FNV-1a digest [I], which tells accounts apart without storing a secret.
  public var cacheScope: String {
    var root = endpoints.root
    while root.hasSuffix("/") { root.removeLast() }
    if let split = root.range(of: "://") {
      let rest = root[split.upperBound...]
      let host = rest.prefix { $0 != "/" }
      root = root[..<split.upperBound].lowercased() + host.lowercased() + rest.dropFirst(host.count)
    }
    let key = endpoints.apiKey.map { "key:" + Self.digest($0) } ?? "no-key"
    return "\(root) \(key) user:\(credentials?.user ?? "-")"
  }

  /// FNV-1a, 64 bits, in hex.
  static func digest(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The translated news text for one language code.
  public func news(languageCode: String) async throws -> String {
    let call = endpoints.getNews(languageCode: languageCode)
    let body = try await send(call)
    return try Self.decode { () throws(InfoManagerResponseError) in
      try InfoManagerResponses.newsText(body, source: RedactedURL(call.url).description)
    }
  }

  /// Runs a decoder, turning its refusal into `InfoManagerFailure.malformed`.
  private static func decode<T>(_ body: () throws(InfoManagerResponseError) -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw InfoManagerFailure.malformed(error)
    }
  }

  /// Sends one call (after a login when credentials are configured) and returns the answer's body.
  private func send(_ call: InfoManagerCall) async throws -> [UInt8] {
    var headers: [HTTPHeader] = [HTTPHeader("Accept", "application/json")]
    if let credentials {
      let login = endpoints.getToken(user: credentials.user, password: credentials.password)
      let body = try await fetch(login, headers: headers)
      let token = try Self.decode { () throws(InfoManagerResponseError) in
        try InfoManagerResponses.token(body, source: RedactedURL(login.url).description)
      }
      let header = InfoManagerEndpoints.authorization(token: token)
      headers.append(HTTPHeader(header.name, header.value))
    }
    return try await fetch(call, headers: headers)
  }

  private func fetch(_ call: InfoManagerCall, headers: [HTTPHeader]) async throws -> [UInt8] {
    var headers = headers
    if !call.body.isEmpty { headers.append(HTTPHeader("Content-Type", "application/json")) }
    let method: HTTPRequest.Method = call.method == .post ? .post : .get
    do {
      return try await http.fetch(HTTPRequest(method: method, url: call.url, headers: headers, body: call.body)).body
    } catch let error as HTTPClientError {
      throw InfoManagerFailure(error)
    } catch {
      throw InfoManagerFailure.other("\(RedactedURL(call.url)): \(error)")
    }
  }
}

/// The user and password of v2's `BKBlukiiCloud.setCredentials` (never printed: `description` hides the
/// password).
public struct InfoManagerCredentials: Sendable, Hashable, CustomStringConvertible {
  public var user: String
  public var password: String
  public init(user: String, password: String) {
    self.user = user
    self.password = password
  }
  public var description: String { "\(user):***" }
}

/// Why a call to the Info Manager failed.
public enum InfoManagerFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// No answer (no connection, too slow, past the time cap, a 5xx): the resolve states' "not reachable".
  case unreachable(String)
  /// An answer that refuses us (4xx) or a TLS failure: a configuration problem.
  case refused(String)
  /// An answer whose body is not what the Info Manager sends.
  case malformed(InfoManagerResponseError)
  case other(String)

  init(_ error: HTTPClientError) {
    switch error.kind {
    case .connection, .tooSlow, .timedOut: self = .unreachable(error.description)
    // 429 (rate limited) is a server that cannot answer now, as a 5xx: UNRESOLVED (or CACHED), not an error of
    // the whole resolve.
    case .status where (error.status ?? 0) >= 500 || error.status == 429: self = .unreachable(error.description)
    case .status, .tls, .redirect: self = .refused(error.description)
    default: self = .other(error.description)
    }
  }

  public var description: String {
    switch self {
    case .unreachable(let text): "the Info Manager is not reachable: \(text)"
    case .refused(let text):
      "the Info Manager refused the request: \(text) (check --info-manager, the API key and credentials)"
    case .malformed(let error): "the Info Manager's answer is malformed: \(error)"
    case .other(let text): text
    }
  }
}
