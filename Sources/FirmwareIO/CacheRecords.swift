import Firmware
import Foundation
import HTTP
import JSON
import OwnThreads

/// A catalogue as the cache holds it: the decoded catalogue, where and when it was fetched, the server's
/// validators (for the next conditional GET), and how this copy was obtained.
public struct CatalogueSnapshot: Sendable {
  public enum Origin: String, Sendable, Hashable, Codable {
    /// Downloaded now (a 200).
    case downloaded
    /// The server answered 304 Not Modified to our validators: the cached copy is current.
    case notModified
    /// `--offline`: the cached copy, not checked against the server.
    case cache
  }

  public var catalogue: FirmwareCatalogue
  public var url: String
  public var fetchedAt: Date
  public var validators: HTTPValidators
  public var origin: Origin
}

/// What `catalogues/<model>.meta.json` records next to the catalogue's bytes.
struct CatalogueMeta: Codable, Hashable {
  var url: String
  var fetchedAt: Date
  var etag: String?
  var lastModified: String?
}

/// A verified package in the cache, as `package.json` records it next to the file.
public struct CachedPackage: Sendable, Hashable, Codable {
  public var model: String
  public var hardware: String
  public var appVersion: String
  public var appFileName: String
  public var url: String
  /// Lower-case hex.
  public var sha256: String
  public var size: Int
  public var fetchedAt: Date
  /// The package file's path (not stored; filled in when read).
  public var path: String = ""
  /// Whether this run downloaded it (false: it was already in the cache). Not stored.
  public var downloaded: Bool = false

  enum CodingKeys: String, CodingKey { case model, hardware, appVersion, appFileName, url, sha256, size, fetchedAt }

  public init(
    model: String, hardware: String, appVersion: String, appFileName: String, url: String, sha256: String, size: Int,
    fetchedAt: Date, path: String, downloaded: Bool
  ) {
    self.model = model
    self.hardware = hardware
    self.appVersion = appVersion
    self.appFileName = appFileName
    self.url = url
    self.sha256 = sha256
    self.size = size
    self.fetchedAt = fetchedAt
    self.path = path
    self.downloaded = downloaded
  }
}

/// The JSON module's coders for the cache's own small records (catalogues themselves go through
/// `JSONParser`): pretty, keys sorted, times ISO-8601.
enum RecordCoding {
  static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
    Array(try JSONValueEncoder(dates: .iso8601).pretty(value).utf8)
  }

  /// The record at `path`; nil when the file is missing or is no such record (it is only a cache, and the
  /// caller fetches again).
  static func decode<T: Decodable>(_ type: T.Type, path: String) -> T? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return try? JSONFileDecoder(file: path, dates: .iso8601).decode(type, from: data)
  }
}

/// Blocking file work of the cache (reads, libzip, SHA-256, fsync), each call on a thread of its own: never
/// the cooperative pool, nor libdispatch's workers (about one per core, shared with every other user of
/// dispatch in the process, so long file work there can hold up unrelated work waiting for a worker).
enum CacheIO {
  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await OwnThread.run("firmware-cache", body)
  }
}
