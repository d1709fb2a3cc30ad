import Cloud
import Foundation

/// `file://` URLs through the `HTTPClient` protocol, for catalogues kept in a folder (the repository's
/// `firmware/example`, a USB stick, a mounted share): a real read of the file system, answering as a
/// server would — 200 with the bytes, 304 when the request's Last-Modified validator still matches the
/// file's modification time, a "404"-style error naming the path when it is missing. Reads run on a
/// dispatch queue, never the cooperative pool. Any other scheme is refused.
public struct FileURLClient: HTTPClient {
  public init() {}

  public func fetch(_ request: HTTPRequest) async throws -> HTTPResponse {
    let path = try Self.path(request.url)
    return try await CacheIO.run {
      let modified = try Self.lastModified(path)
      if let since = request.conditional?.lastModified, since == modified {
        return HTTPResponse(status: 304, headers: [HTTPHeader("Last-Modified", modified)], effectiveURL: request.url)
      }
      let bytes = try Self.read(path, cap: request.maxBodyBytes)
      return HTTPResponse(status: 200, headers: [HTTPHeader("Last-Modified", modified)], body: bytes, effectiveURL: request.url)
    }
  }

  public func download(
    _ request: HTTPRequest, to destination: String, progress: (@Sendable (HTTPTransferProgress) -> Void)?
  ) async throws -> HTTPResponse {
    let path = try Self.path(request.url)
    return try await CacheIO.run {
      let bytes = try Self.read(path, cap: request.maxBodyBytes)
      do {
        try Data(bytes).write(to: URL(fileURLWithPath: destination))
      } catch {
        throw FirmwareStoreError("cannot write \(destination): \(error.localizedDescription)")
      }
      progress?(HTTPTransferProgress(bytes: Int64(bytes.count), total: Int64(bytes.count), bytesPerSecond: 0))
      return HTTPResponse(status: 200, effectiveURL: request.url, bytesWritten: Int64(bytes.count))
    }
  }

  static func path(_ url: String) throws -> String {
    guard url.lowercased().hasPrefix("file://") else { throw FirmwareStoreError("\(url): only file:// URLs are read here") }
    return String(url.dropFirst("file://".count)).removingPercentEncoding ?? String(url.dropFirst("file://".count))
  }

  static func lastModified(_ path: String) throws -> String {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let date = attributes[.modificationDate] as? Date else {
      throw FirmwareStoreError("file://\(path): no such file (try the catalogue folder's path)")
    }
    return String(format: "%.6f", date.timeIntervalSince1970)
  }

  static func read(_ path: String, cap: Int?) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { throw FirmwareStoreError("file://\(path): cannot be read") }
    if let cap, data.count > cap { throw FirmwareStoreError("file://\(path) is \(data.count) bytes, above the cap of \(cap)") }
    return [UInt8](data)
  }
}
