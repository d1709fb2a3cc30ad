import Foundation
import HTTP
import InfoManager
import InfoManagerIO
import TestClocks
import TestServers
import Testing

/// The live client against the loopback Info Manager (Fixtures/info_manager_server.py, real HTTP over a real
/// socket through libcurl): resolved, no data, server down (UNRESOLVED, then CACHED after a success), cache
/// expiry, language fallback, a malformed body, a slow server, the API key, credentials and news. Time is a
/// `ManualTime` the test moves; no assertion depends on how long anything took.
@Suite(.timeLimit(.minutes(2))) struct InfoManagerLoopbackTests {
  static let key = "test-key-123"

  static func client(_ root: String, credentials: InfoManagerCredentials? = nil, maxTime: Duration = .seconds(20))
    -> InfoManagerClient
  {
    InfoManagerClient(
      endpoints: InfoManagerEndpoints(root: root, apiKey: key), credentials: credentials,
      http: CurlHTTPClient(
        configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), maxTime: maxTime, retry: .none)))
  }

  static let batch = BatchResolution(source: .blukii, languages: .sdkDefault, cacheTimeout: 180)

  @Test func aBatchIsOneRequestAndGivesResolvedAndNoData() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    var cache = ResolveCache()
    let time = ManualTime(1000)
    let results = try await Self.client(server.root).resolve(
      ["B10001", "B10004", "B10003"], with: Self.batch, cache: &cache, now: time.read)
    #expect(results.map(\.id) == ["B10001", "B10004", "B10003"])
    #expect(results.map(\.state) == [.resolved, .noData, .resolved])
    let entrance = try #require(results[0].infoPoint)
    #expect(entrance.id == "5629499534213120" && entrance.name == "Museum entrance")
    #expect(
      entrance.notificationText == "Welcome to the museum" && entrance.description == "Welcome desk and cloakroom")
    // de-de is first in the SDK's priority and B10001 has German content.
    #expect(entrance.language == "de-de" && entrance.outputInfos.map(\.title) == ["Willkommen"])
    #expect(results[2].infoPoint?.deactivated == true && results[2].infoPoint?.deactivatedByAdmin == true)
    let log = try await server.log()
    #expect(log.count == 1)
    let body = log.first?["body"] as? [String: Any]
    #expect(body?["blukiiIds"] as? [String] == ["B10001", "B10004", "B10003"])
    let scope = Self.client(server.root).cacheScope
    #expect(cache.entries.keys.sorted() == ["\(scope) blukii:B10001", "\(scope) blukii:B10003"])
    #expect(!scope.contains(Self.key), "the API key is never written to the cache")
  }

  /// The cache belongs to one server and account: an answer of server A served as CACHED to a resolve
  /// against server B would call a module registered in the wrong customer's Info Manager.
  @Test func aCachedAnswerIsServedOnlyToTheServerAndAccountThatGaveIt() async throws {
    let a = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { a.stop() }
    let b = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { b.stop() }
    var cache = ResolveCache()
    let time = ManualTime(1000)
    let first = try await Self.client(a.root).resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(first.map(\.state) == [.resolved])
    time.advance(10)
    let other = try await Self.client(b.root).resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(other.map(\.state) == [.resolved], "server B is asked, not answered from A's cache")
    #expect(try await b.log().count == 1)
    // The same server under another API key is another account.
    var keyed = Self.client(a.root)
    keyed.endpoints.apiKey = "another-key"
    #expect(keyed.cacheScope != Self.client(a.root).cacheScope)
    // The same server and account, written differently (upper-case host, trailing slash): CACHED.
    let same = try await Self.client(a.root.uppercased().replacingOccurrences(of: "HTTP://", with: "http://") + "/")
      .resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(same.map(\.state) == [.cached])
    #expect(try await a.log().count == 1)
  }

  @Test func languageFallbackFollowsThePriorityList() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    var cache = ResolveCache()
    // B10002 has French and English content, no German: the SDK's default order gives French.
    let sdk = try await Self.client(server.root).resolve(
      ["B10002"], with: Self.batch, cache: &cache, now: ManualTime(0).read)
    #expect(sdk[0].infoPoint?.language == "fr-fr" && sdk[0].infoPoint?.outputInfos.map(\.type) == [.pdf])
    var english = Self.batch
    english.languages = try LanguagePriority(parsing: "it-it,en-gb,fr-fr")
    english.cacheEnabled = false
    var unused = ResolveCache()
    let en = try await Self.client(server.root).resolve(
      ["B10002"], with: english, cache: &unused, now: ManualTime(0).read)
    #expect(en[0].infoPoint?.language == "en-gb" && en[0].infoPoint?.outputInfos.map(\.type) == [.video, .youtube])
  }

  @Test func serverDownIsUnresolvedThenCachedAfterASuccessUntilTheCacheExpires() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    let client = Self.client(server.root)
    var cache = ResolveCache()
    let time = ManualTime(0)
    // Down (503), nothing cached: UNRESOLVED with the reason.
    try await server.mode("unavailable")
    let down = try await client.resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(down.map(\.state) == [.unresolved] && down[0].reason?.contains("503") == true, "\(down[0].reason ?? "")")
    // Up: RESOLVED, cached.
    try await server.mode("normal")
    time.advance(10)
    let up = try await client.resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(up.map(\.state) == [.resolved])
    // Down again within the timeout: CACHED, with the time of the answer.
    try await server.mode("unavailable")
    time.advance(100)
    let cached = try await client.resolve(["B10001", "B10002"], with: Self.batch, cache: &cache, now: time.read)
    #expect(cached.map(\.state) == [.cached, .unresolved] && cached[0].cachedAt == 10)
    #expect(cached[0].infoPoint?.name == "Museum entrance")
    // Past the timeout the entry is not served: asked again.
    time.advance(80)
    let expiredDown = try await client.resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(expiredDown.map(\.state) == [.unresolved])
    try await server.mode("normal")
    let again = try await client.resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(again.map(\.state) == [.resolved])
    // A server on another address is another Info Manager: nothing of this one's cache is served to it.
    let deadRoot = "http://127.0.0.1:\(try await Self.deadPort())"
    let elsewhere = try await Self.client(deadRoot).resolve(["B10001"], with: Self.batch, cache: &cache, now: time.read)
    #expect(elsewhere.map(\.state) == [.unresolved] && elsewhere[0].reason?.contains("127.0.0.1") == true)
  }

  @Test func a503IsUnreachableButASingleIDResolveThrows() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    try await server.mode("unavailable")
    var cache = ResolveCache()
    let batch = try await Self.client(server.root).resolve(
      ["B10001"], with: Self.batch, cache: &cache, now: ManualTime(0).read)
    #expect(batch.map(\.state) == [.unresolved] && batch[0].reason?.contains("503") == true)
    let single = BatchResolution(source: .nfc, languages: .sdkDefault, single: true)
    let error = await #expect(throws: InfoManagerFailure.self) {
      try await Self.client(server.root).resolve(["B10001"], with: single, cache: &cache, now: ManualTime(0).read)
    }
    guard case .unreachable? = error else {
      Issue.record("expected unreachable, got \(String(describing: error))")
      return
    }
  }

  @Test func aMalformedBodyIsAClearErrorAndNothingIsCached() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    var cache = ResolveCache()
    cache.store(InfoPoint(id: "old", blukiiId: "B10002"), source: .blukii, id: "B10002", now: -1000)
    let before = cache
    try await server.mode("malformed")
    let error = await #expect(throws: InfoManagerFailure.self) {
      try await Self.client(server.root).resolve(
        ["B10001", "B10002"], with: Self.batch, cache: &cache, now: ManualTime(0).read)
    }
    #expect(cache == before)
    let text = error?.description ?? ""
    #expect(text.contains("$.items[0].outputInfos[0].type") && text.contains("HOLO GRAM!") && text.contains("YOUTUBE"))
    // The URL in the message has the API key removed.
    #expect(text.contains("getBlukiisInfo") && !text.contains(Self.key))
  }

  @Test func aSlowServerTimesOutAsUnresolved() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    try await server.mode("slow")
    var cache = ResolveCache()
    let results = try await Self.client(server.root, maxTime: .seconds(1)).resolve(
      ["B10001"], with: Self.batch, cache: &cache, now: ManualTime(0).read)
    #expect(results.map(\.state) == [.unresolved])
    #expect(cache.entries.isEmpty)
  }

  @Test func aWrongAPIKeyIsRefusedNotUnresolved() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", "another-key"])
    defer { server.stop() }
    var cache = ResolveCache()
    let error = await #expect(throws: InfoManagerFailure.self) {
      try await Self.client(server.root).resolve(["B10001"], with: Self.batch, cache: &cache, now: ManualTime(0).read)
    }
    guard case .refused(let text)? = error else {
      Issue.record("expected refused, got \(String(describing: error))")
      return
    }
    #expect(text.contains("400") && !text.contains(Self.key))
    // The server's own words are shown (they say what is wrong).
    #expect(text.contains("HTTP 400: API key not valid. Please pass a valid API key."), "\(text)")
  }

  /// 429 is a server that cannot answer now: UNRESOLVED in a batch (it failed the whole command).
  @Test func rateLimitingIsUnreachableNotARefusal() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    try await server.mode("ratelimited")
    var cache = ResolveCache()
    let batch = try await Self.client(server.root).resolve(
      ["B10001"], with: Self.batch, cache: &cache, now: ManualTime(0).read)
    #expect(batch.map(\.state) == [.unresolved])
    #expect(batch[0].reason?.contains("HTTP 429: Rate limit exceeded") == true, "\(batch[0].reason ?? "")")
  }

  @Test func credentialsLogInAndTheTokenIsSent() async throws {
    let server = try await InfoManagerServer.start(arguments: [
      "--api-key", Self.key, "--user", "ops", "--password", "s3cret",
    ])
    defer { server.stop() }
    var cache = ResolveCache()
    let good = InfoManagerCredentials(user: "ops", password: "s3cret")
    let results = try await Self.client(server.root, credentials: good).resolve(
      ["B10001"], with: Self.batch, cache: &cache, now: ManualTime(0).read)
    #expect(results.map(\.state) == [.resolved])
    let log = try await server.log()
    #expect(
      log.map { $0["path"] as? String } == ["/_ah/api/auth/v1/getToken", "/_ah/api/mobileclient/v1/getBlukiisInfo"])
    #expect(log.last?["authorization"] as? Bool == true)
    // Without credentials the server refuses: a configuration error, not UNRESOLVED.
    await #expect(throws: InfoManagerFailure.self) {
      try await Self.client(server.root).resolve(
        ["B10001"], with: Self.batch, cache: &cache, now: ManualTime(1000).read)
    }
    let bad = InfoManagerCredentials(user: "ops", password: "wrong")
    #expect(!bad.description.contains("wrong"))
    await #expect(throws: InfoManagerFailure.self) {
      try await Self.client(server.root, credentials: bad).resolve(
        ["B10001"], with: Self.batch, cache: &cache, now: ManualTime(2000).read)
    }
  }

  @Test func newsIsTranslated() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", Self.key])
    defer { server.stop() }
    #expect(try await Self.client(server.root).news(languageCode: "de-de") == "Neu: Sonderausstellung ab Montag.")
    #expect(try await Self.client(server.root).news(languageCode: "en-gb") == "New: special exhibition from Monday.")
    #expect(try await Self.client(server.root).news(languageCode: "fr-fr") == "")
  }

  /// A loopback port nothing listens on (connections are refused: a server that is down).
  static func deadPort() async throws -> Int {
    let port = try LocalTools.freePort()
    try await LocalTools.waitUntilRefused(port: port)
    return port
  }
}

/// Seconds since 1970 for the cache, read from the project's `ManualClock` (it only moves when the test
/// advances it), starting at `start`.
struct ManualTime: Sendable {
  let clock = ManualClock()
  let start: Double
  init(_ start: Double) { self.start = start }
  func advance(_ seconds: Int) { clock.advance(by: .seconds(seconds)) }
  var read: @Sendable () -> Double {
    { [clock, start] in
      let (s, atto) = clock.now.offset.components
      return start + Double(s) + Double(atto) / 1e18
    }
  }
}
