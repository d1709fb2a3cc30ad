import Foundation
import HTTP
import Synchronization
import TestServers
import Testing

/// The libcurl client against Fixtures/fault_server.py: every network fault the client must survive that nginx cannot produce.
@Suite("libcurl client against a fault-injecting server", .timeLimit(.minutes(3)))
struct CurlFaultTests {
  /// Short waits so the suite runs in seconds: retries after 0.1 s, the low-speed window 2 s.
  static let quick = HTTPClientConfiguration(
    connectTimeout: .seconds(10), lowSpeedBytesPerSecond: 1000, lowSpeedTime: .seconds(2), maxTime: .seconds(60),
    maxBodyBytes: 1 << 20, userAgent: "beacon-provision/test",
    retry: HTTPRetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(100), maxDelay: .seconds(5)))

  struct LoggedRequest: Decodable {
    var method: String
    var path: String
    var range: String?
    var userAgent: String?
  }

  func log(_ server: FaultServer) async throws -> [LoggedRequest] {
    let response = try await CurlHTTPClient(configuration: Self.quick).fetch(HTTPRequest(url: server.base + "/_log"))
    return try JSONDecoder().decode([LoggedRequest].self, from: Data(response.body))
  }

  func expectFailure(_ kind: HTTPClientError.Kind, _ body: () async throws -> Void) async -> HTTPClientError? {
    do {
      try await body()
      Issue.record("expected a \(kind) failure")
      return nil
    } catch let error as HTTPClientError {
      #expect(error.kind == kind, "\(error)")
      return error
    } catch {
      Issue.record("unexpected \(error)")
      return nil
    }
  }

  @Test func a500ThenA200IsRetried() async throws {
    let server = try await FaultServer.start()
    let response = try await CurlHTTPClient(configuration: Self.quick).fetch(
      HTTPRequest(url: server.base + "/flaky-500"))
    #expect(response.status == 200)
    #expect(String(decoding: response.body, as: UTF8.self) == "ok after 500")
    let requests = try await log(server).filter { $0.path == "/flaky-500" }
    #expect(requests.count == 2)
    #expect(requests.first?.userAgent == "beacon-provision/test")
  }

  @Test func a429IsRetriedAfterItsRetryAfter() async throws {
    let server = try await FaultServer.start()
    let started = ContinuousClock.now
    let response = try await CurlHTTPClient(configuration: Self.quick).fetch(
      HTTPRequest(url: server.base + "/rate-limited"))
    #expect(String(decoding: response.body, as: UTF8.self) == "ok after 429")
    // Retry-After: 1 replaces the 0.1 s backoff: the second request came at least a second later.
    #expect(ContinuousClock.now - started >= .seconds(1))
  }

  @Test func a5xxThatPersistsFailsWithTheStatusAfterTheAttempts() async throws {
    let server = try await FaultServer.start()
    let error = await expectFailure(.status) {
      _ = try await CurlHTTPClient(configuration: Self.quick).fetch(
        HTTPRequest(url: server.base + "/always-500?token=s3cret"))
    }
    #expect(error?.status == 503)
    #expect(error?.description.contains("s3cret") == false)
    #expect(error?.description.contains("token=REDACTED") == true)
    #expect(try await log(server).filter { $0.path.hasPrefix("/always-500") }.count == 3)
  }

  @Test func aDownloadCutMidBodyResumesWithARangeRequest() async throws {
    let server = try await FaultServer.start()
    let file = try LocalTools.temporaryDirectory("dl") + "/cut.bin"
    let response = try await CurlHTTPClient(configuration: Self.quick).download(
      HTTPRequest(url: server.base + "/cut"), to: file, progress: nil)
    #expect(response.status == 206)
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == FaultServer.body)
    let requests = try await log(server).filter { $0.path == "/cut" }
    #expect(requests.map(\.range) == [nil, "bytes=\(FaultServer.body.count / 2)-"])
  }

  /// A server that cuts every answer mid-body (headers and half the bytes asked for, then the connection
  /// closed) was told "check the address, the network and any proxy variables", though it had just answered.
  /// The hint says what happened and what to do: run again — a download resumes from what arrived (here
  /// 100 000 + 50 000 + 25 000 bytes over the three attempts) — and, if it repeats, look at the server.
  @Test func anAnswerCutEveryTimeSaysSoAndThatADownloadResumes() async throws {
    let server = try await FaultServer.start()
    let file = try LocalTools.temporaryDirectory("dl") + "/always-cut.bin"
    let download = await expectFailure(.connection) {
      _ = try await CurlHTTPClient(configuration: Self.quick).download(
        HTTPRequest(url: server.base + "/always-cut"), to: file, progress: nil)
    }
    #expect(
      download?.hint
        == "the server closed the connection before the whole answer arrived; run the command again: the download "
        + "resumes from the 175000 bytes that arrived; if it is cut every time, check the server and any proxy between",
      "\(String(describing: download))")
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)).count == 175_000)
    let fetch = await expectFailure(.connection) {
      _ = try await CurlHTTPClient(configuration: Self.quick).fetch(HTTPRequest(url: server.base + "/always-cut"))
    }
    #expect(
      fetch?.hint
        == "the server closed the connection before the whole answer arrived; try again; if it is cut every time, "
        + "check the server and any proxy between", "\(String(describing: fetch))")
  }

  /// A server whose Content-Length is 100 bytes longer than the file: every transfer ends short, a request for
  /// the rest is 416. It ended "the server's ranges do not match the file" though the whole body arrived.
  @Test func aContentLengthLongerThanTheFileIsNamedAsSuch() async throws {
    let server = try await FaultServer.start()
    let file = try LocalTools.temporaryDirectory("dl") + "/lie.bin"
    do {
      _ = try await CurlHTTPClient(configuration: Self.quick).download(
        HTTPRequest(url: server.base + "/length-lie"), to: file, progress: nil)
      Issue.record("a short body was accepted")
    } catch let error as HTTPClientError {
      #expect(
        error.description.contains(
          "each transfer ends at \(FaultServer.body.count) bytes while the server announces more"), "\(error)")
      #expect(!error.description.contains("ranges do not match"))
    }
  }

  @Test func aServerThatIgnoresTheRangeGetsTheFileRewrittenFromTheStart() async throws {
    let server = try await FaultServer.start()
    let file = try LocalTools.temporaryDirectory("dl") + "/norange.bin"
    let response = try await CurlHTTPClient(configuration: Self.quick).download(
      HTTPRequest(url: server.base + "/cut-norange"), to: file, progress: nil)
    #expect(response.status == 200)
    #expect(response.bytesWritten == Int64(FaultServer.body.count))
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == FaultServer.body)
    #expect(try await log(server).filter { $0.path == "/cut-norange" }.last?.range != nil)
  }

  @Test func aTrickleBelowTheLowSpeedLimitIsAborted() async throws {
    let server = try await FaultServer.start()
    let file = try LocalTools.temporaryDirectory("dl") + "/slow.bin"
    let error = await expectFailure(.tooSlow) {
      _ = try await CurlHTTPClient(configuration: Self.quick).download(
        HTTPRequest(url: server.base + "/trickle"), to: file, progress: nil)
    }
    #expect(error?.hint?.contains("low-speed") == true)
  }

  @Test func aRedirectLoopStopsAtTheLimit() async throws {
    let server = try await FaultServer.start()
    _ = await expectFailure(.redirect) {
      _ = try await CurlHTTPClient(configuration: Self.quick).fetch(HTTPRequest(url: server.base + "/loop"))
    }
    // The first request and five redirects followed, no more.
    #expect(try await log(server).filter { $0.path.hasPrefix("/loop") }.count == 6)
  }

  @Test func aContentLengthOverTheCapIsRefusedBeforeTheBody() async throws {
    let server = try await FaultServer.start()
    let file = try LocalTools.temporaryDirectory("dl") + "/huge.bin"
    _ = await expectFailure(.tooLarge) {
      _ = try await CurlHTTPClient(configuration: Self.quick).download(
        HTTPRequest(url: server.base + "/huge-length"), to: file, progress: nil)
    }
    #expect((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 0)
  }

  @Test func aBodyWithoutLengthIsCutAtTheCapWhileItStreams() async throws {
    let server = try await FaultServer.start()
    let error = await expectFailure(.tooLarge) {
      _ = try await CurlHTTPClient(configuration: Self.quick).fetch(
        HTTPRequest(url: server.base + "/endless", maxBodyBytes: 50_000))
    }
    #expect(error?.description.contains("50000") == true)
  }

  @Test func anUnchangedResourceAnswers304ToAConditionalRequest() async throws {
    let server = try await FaultServer.start()
    let client = CurlHTTPClient(configuration: Self.quick)
    let first = try await client.fetch(HTTPRequest(url: server.base + "/etag"))
    #expect(first.validators.etag == "\"v1\"")
    let second = try await client.fetch(HTTPRequest(url: server.base + "/etag", conditional: first.validators))
    #expect(second.isNotModified)
    #expect(second.body.isEmpty)
  }

  @Test func aMissingFileIsA404WithAHint() async throws {
    let server = try await FaultServer.start()
    let error = await expectFailure(.status) {
      _ = try await CurlHTTPClient(configuration: Self.quick).fetch(
        HTTPRequest(url: "http://user:pa55word@127.0.0.1:\(server.port)/none"))
    }
    #expect(error?.status == 404)
    #expect(error?.description.contains("pa55word") == false)
    #expect(error?.hint != nil)
  }

  @Test func aRefusedConnectionIsRetriedThenReported() async throws {
    let port = try LocalTools.freePort()
    let error = await expectFailure(.connection) {
      _ = try await CurlHTTPClient(configuration: Self.quick).fetch(HTTPRequest(url: "http://127.0.0.1:\(port)/x"))
    }
    #expect(error?.description.hasPrefix("http://127.0.0.1:\(port)/x: ") == true)
  }

  @Test func fileURLsAreReadThroughLibcurl() async throws {
    let directory = try LocalTools.temporaryDirectory("file")
    try Data("{\"a\":1}".utf8).write(to: URL(fileURLWithPath: directory + "/c.json"))
    let response = try await CurlHTTPClient(configuration: Self.quick).fetch(
      HTTPRequest(url: "file://\(directory)/c.json"))
    #expect(String(decoding: response.body, as: UTF8.self) == "{\"a\":1}")
    _ = await expectFailure(.file) {
      _ = try await CurlHTTPClient(configuration: Self.quick).fetch(
        HTTPRequest(url: "file://\(directory)/missing.json"))
    }
  }
}

/// A download shows each byte it writes to its observer with its offset (for hashing while receiving): a
/// resumed body continues where the cut one stopped, a server that ignores the Range starts again at zero,
/// and the writes replayed in order rebuild the file exactly.
@Suite(.timeLimit(.minutes(2))) struct DownloadObserverTests {
  final class Replay: DownloadObserver {
    let state = Mutex<(bytes: [UInt8], offsets: [Int64])>(([], []))
    func wrote(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
      let piece = Array(bytes)
      state.withLock { s in
        s.offsets.append(offset)
        s.bytes = Array(s.bytes.prefix(Int(offset))) + piece
      }
    }
  }

  @Test(arguments: ["/cut", "/cut-norange", "/body"]) func theWritesReplayedRebuildTheFile(path: String) async throws {
    let server = try await FaultServer.start()
    let file = try LocalTools.temporaryDirectory("dl") + "/observed.bin"
    let replay = Replay()
    _ = try await CurlHTTPClient(configuration: CurlFaultTests.quick).download(
      HTTPRequest(url: server.base + path), to: file, observer: replay, progress: nil)
    let (bytes, offsets) = replay.state.withLock { ($0.bytes, $0.offsets) }
    #expect(bytes == FaultServer.body)
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == bytes)
    // The cut transfers begin again: at the cut (a resumed 206) or at zero (a 200 that ignored the Range).
    #expect(offsets.filter { $0 == 0 }.count == (path == "/cut-norange" ? 2 : 1), "\(offsets)")
  }
}
