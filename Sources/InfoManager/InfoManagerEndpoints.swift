import JSON

/// Every request shape the blukii Info Manager client sends, in this one file (docs/protocols/info-manager.md, "RPC
/// methods" and "Transport"), so they are easy to correct once a real server's discovery document is at hand.
///
/// [?] The REST shapes are **inferred**, not read from a discovery document: Google Cloud Endpoints serves an
/// API `name/version` under `{root}/_ah/api/name/version/`, takes the API key as the `key` query parameter and
/// an OAuth/auth token as `Authorization: Bearer`. Our choices, each one line below:
/// - `getBlukiisInfo`: `POST {root}/_ah/api/mobileclient/v1/getBlukiisInfo` with the `GetBlukiisInfoData`
///   object as JSON (`appLabel`, `blukiiIds[]`, `blukiis[{id}]`, `deviceId`); one request per batch.
/// - `getNews`: `GET {root}/_ah/api/mobileclient/v1/getNews/{languageCode}`.
/// - `getToken` (v2's `auth.authEndpointsApi`): `POST {root}/_ah/api/auth/v1/getToken` with `{user, password}`,
///   answered by `{token}`; only sent when credentials are configured.
///
/// Pure: it builds values; the live side turns them into HTTP requests.
public struct InfoManagerEndpoints: Sendable, Hashable {
  /// The server's root URL (scheme, host, optional port and path prefix), without the trailing `/_ah/api`.
  public var root: String
  /// The Cloud Endpoints API key, sent as `?key=`; nil sends none.
  public var apiKey: String?

  public init(root: String, apiKey: String?) {
    var trimmed = root
    while trimmed.hasSuffix("/") { trimmed.removeLast() }
    if trimmed.hasSuffix("/_ah/api") { trimmed.removeLast("/_ah/api".count) }
    self.root = trimmed
    self.apiKey = apiKey
  }

  /// The API roots the SDK's binary names (docs/protocols/info-manager.md).
  public static let mobileClientAPI = "mobileclient/v1"
  public static let authAPI = "auth/v1"

  /// The batch resolve: one request for every ID of a batch.
  public func getBlukiisInfo(ids: [String], appLabel: String, deviceId: String) -> InfoManagerCall {
    let body: JSONObject = [
      "appLabel": .string(appLabel),
      "blukiiIds": .array(ids.map { .string($0) }),
      "blukiis": .array(ids.map { .object(["id": .string($0)]) }),
      "deviceId": .string(deviceId),
    ]
    return InfoManagerCall(
      method: .post, url: url(Self.mobileClientAPI, "getBlukiisInfo"), body: Array(body.description.utf8))
  }

  /// The translated news text for one language code (`de-de`, `en-gb`, …).
  public func getNews(languageCode: String) -> InfoManagerCall {
    InfoManagerCall(
      method: .get, url: url(Self.mobileClientAPI, "getNews/" + PercentEncoding.pathSegment(languageCode)))
  }

  /// The login of v2's `BKBlukiiCloud.setCredentials` + `login()`.
  public func getToken(user: String, password: String) -> InfoManagerCall {
    let body: JSONObject = ["user": .string(user), "password": .string(password)]
    return InfoManagerCall(method: .post, url: url(Self.authAPI, "getToken"), body: Array(body.description.utf8))
  }

  /// The header that carries a token from `getToken`.
  public static func authorization(token: String) -> (name: String, value: String) {
    ("Authorization", "Bearer " + token)
  }

  private func url(_ api: String, _ method: String) -> String {
    let base = "\(root)/_ah/api/\(api)/\(method)"
    guard let apiKey, !apiKey.isEmpty else { return base }
    return base + "?key=" + PercentEncoding.queryValue(apiKey)
  }
}

/// One call to the Info Manager: what the live side sends (a JSON body is sent with
/// `Content-Type: application/json`).
public struct InfoManagerCall: Sendable, Hashable {
  public enum Method: String, Sendable, Hashable {
    case get = "GET"
    case post = "POST"
  }
  public var method: Method
  public var url: String
  public var body: [UInt8]

  public init(method: Method, url: String, body: [UInt8] = []) {
    self.method = method
    self.url = url
    self.body = body
  }
}

/// RFC 3986 percent-encoding for the two places a configured or user-given value enters a URL.
enum PercentEncoding {
  static func pathSegment(_ text: String) -> String { encode(text, keeping: "-._~") }
  static func queryValue(_ text: String) -> String { encode(text, keeping: "-._~") }

  private static func encode(_ text: String, keeping extra: String) -> String {
    var out = ""
    for byte in text.utf8 {
      let c = Character(Unicode.Scalar(byte))
      if byte < 0x80, c.isLetter || c.isNumber || extra.contains(c) {
        out.append(c)
      } else {
        out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return out
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: Swift.max(0, width - count)) + self
  }
}
