import Foundation
import HTTP
import Synchronization

/// A stand-in for the small `HTTPClient` protocol, for tests of the cache's own logic (the live libcurl
/// client is tested against real servers in CLITests): serves fixed bodies by URL, answers 304 when the
/// request's ETag matches, and counts requests. A download into a file that holds part of the body's length
/// gets the rest appended, as the live client's Range request to a server that honours it does, whatever the
/// file holds.
final class FakeHTTPClient: HTTPClient {
  struct Resource: Sendable {
    var body: [UInt8]
    var etag: String?
  }

  private struct State {
    var resources: [String: Resource] = [:]
    var requests: [HTTPRequest] = []
  }

  private let state = Mutex(State())

  init(_ resources: [String: Resource] = [:]) { state.withLock { $0.resources = resources } }

  func serve(_ url: String, _ body: [UInt8], etag: String? = nil) {
    state.withLock { $0.resources[url] = Resource(body: body, etag: etag) }
  }
  var requests: [HTTPRequest] { state.withLock { $0.requests } }
  func count(_ url: String) -> Int { requests.filter { $0.url == url }.count }

  func fetch(_ request: HTTPRequest) async throws -> HTTPResponse {
    let resource = try answer(request)
    if let etag = resource.etag, request.conditional?.etag == etag {
      return HTTPResponse(status: 304, headers: [HTTPHeader("ETag", etag)], effectiveURL: request.url)
    }
    return HTTPResponse(
      status: 200, headers: resource.etag.map { [HTTPHeader("ETag", $0)] } ?? [], body: resource.body,
      effectiveURL: request.url)
  }

  func download(_ request: HTTPRequest, to path: String, progress: (@Sendable (HTTPTransferProgress) -> Void)?)
    async throws -> HTTPResponse
  {
    let resource = try answer(request)
    let held = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int).flatMap { $0 } ?? 0
    if held > 0, held < resource.body.count, let file = FileHandle(forWritingAtPath: path) {
      defer { try? file.close() }
      try file.seekToEnd()
      try file.write(contentsOf: Data(resource.body[held...]))
      return HTTPResponse(status: 206, effectiveURL: request.url, bytesWritten: Int64(resource.body.count))
    }
    try Data(resource.body).write(to: URL(fileURLWithPath: path))
    return HTTPResponse(status: 200, effectiveURL: request.url, bytesWritten: Int64(resource.body.count))
  }

  private func answer(_ request: HTTPRequest) throws -> Resource {
    try state.withLock { s in
      s.requests.append(request)
      guard let r = s.resources[request.url] else { throw NotFound(url: request.url) }
      return r
    }
  }

  struct NotFound: Error, CustomStringConvertible {
    var url: String
    var description: String { "\(url): HTTP 404" }
  }
}
