import BeaconCore
import Firmware
import Foundation
import HTTP
import OwnThreads

/// The verified local firmware cache (layout: `FirmwareCacheLayout`). Catalogues are fetched with a
/// conditional GET (the stored ETag / Last-Modified; a 304 serves the cached copy) and stored only once
/// they decode. A package is fetched under its folder's lock into `<name>.part`, verified by
/// `PackageVerifier` (size, SHA-256, every `dfu inspect` check), fsynced and renamed; a package that fails
/// verification is deleted, so the cache holds only verified packages. A package already in the cache is
/// verified again before it is used. With no client (`--offline`) only the cache is used.
///
/// [I] A transfer that breaks off leaves its `.part` (the HTTP client resumes it with a Range request next
/// time; `firmware prune` removes it); a `.part` is never mistaken for a package, and a resumed one that fails
/// verification is fetched once more from the start.
public struct FirmwareCache: Sendable {
  public var layout: FirmwareCacheLayout
  /// The network; nil = offline (cache only).
  public var client: (any HTTPClient)?
  public var verifier: PackageVerifier
  /// Download progress, for a terminal progress line.
  public var progress: (@Sendable (HTTPTransferProgress) -> Void)?
  /// Called with the package's folder when another fetch of the same package (this process or another)
  /// holds its lock, before waiting for it.
  public var lockWait: (@Sendable (String) -> Void)?
  /// Told what a verified package has that is odd but not refused (`PackageVerifier.Verified.warnings`).
  public var warn: (@Sendable (String) -> Void)?
  /// The largest catalogue accepted.
  public static let maximumCatalogueBytes = 4 << 20
  /// The largest package accepted when the catalogue gives no size.
  public static let maximumPackageBytes = 64 << 20

  public init(
    layout: FirmwareCacheLayout, client: (any HTTPClient)?, verifier: PackageVerifier = PackageVerifier(),
    progress: (@Sendable (HTTPTransferProgress) -> Void)? = nil, lockWait: (@Sendable (String) -> Void)? = nil
  ) {
    self.lockWait = lockWait
    self.layout = layout
    self.client = client
    self.verifier = verifier
    self.progress = progress
  }

  public var isOffline: Bool { client == nil }

  // MARK: catalogues

  /// The model's catalogue: fetched (conditionally, when a copy is cached) or, offline, the cached copy.
  public func catalogue(model: String, location: CatalogueLocation) async throws -> CatalogueSnapshot {
    let url = try location.catalogueURL(model: model)
    // What is stored and shown: the URL without credentials.
    let safeURL = RedactedURL(url).description
    let (path, metaPath) = (layout.cataloguePath(model: model), layout.catalogueMetaPath(model: model))
    let cached = try await CacheIO.run { () -> (bytes: [UInt8], meta: CatalogueMeta)? in
      guard let data = FileManager.default.contents(atPath: path),
        let meta = RecordCoding.decode(CatalogueMeta.self, path: metaPath)
      else { return nil }
      return ([UInt8](data), meta)
    }
    guard let client else {
      guard let cached else {
        throw FirmwareCacheError(
          "--offline: no cached catalogue for \(model) in \(layout.root) "
            + "(fetch it once online: beacon-provision firmware catalog \(model))")
      }
      let catalogue = try FirmwareCatalogue.decode(cached.bytes, model: model, source: path)
      return CatalogueSnapshot(
        catalogue: catalogue, url: cached.meta.url, fetchedAt: cached.meta.fetchedAt,
        validators: HTTPValidators(etag: cached.meta.etag, lastModified: cached.meta.lastModified), origin: .cache)
    }
    // Validators are only worth sending for a copy of the same URL.
    let usable = cached.flatMap { $0.meta.url == safeURL ? $0 : nil }
    let validators = usable.map { HTTPValidators(etag: $0.meta.etag, lastModified: $0.meta.lastModified) }
    let response = try await client.fetch(
      HTTPRequest(
        url: url, conditional: validators?.isEmpty == false ? validators : nil, maxBodyBytes: Self.maximumCatalogueBytes
      ))
    let now = Date()
    if response.isNotModified, let usable {
      let catalogue = try FirmwareCatalogue.decode(usable.bytes, model: model, source: path)
      var refreshed = usable.meta
      refreshed.fetchedAt = now
      let meta = refreshed
      try await CacheIO.run { try DurableFile.write(try RecordCoding.encode(meta), to: metaPath) }
      return CatalogueSnapshot(
        catalogue: catalogue, url: safeURL, fetchedAt: now, validators: validators ?? HTTPValidators(),
        origin: .notModified)
    }
    // Decoded before it is stored: a bad catalogue never replaces a good cached one.
    let catalogue = try FirmwareCatalogue.decode(response.body, model: model, source: safeURL)
    let fresh = response.validators
    let meta = CatalogueMeta(url: safeURL, fetchedAt: now, etag: fresh.etag, lastModified: fresh.lastModified)
    let (directory, body) = (layout.cataloguesDirectory, response.body)
    try await CacheIO.run {
      try DurableFile.makeDirectory(directory)
      try DurableFile.write(body, to: path)
      try DurableFile.write(try RecordCoding.encode(meta), to: metaPath)
    }
    return CatalogueSnapshot(catalogue: catalogue, url: safeURL, fetchedAt: now, validators: fresh, origin: .downloaded)
  }

  // MARK: packages

  /// The verified package of `entry` for `model` / `hardware`: from the cache when it is there and still
  /// verifies, else (online) downloaded and verified under the package folder's lock.
  public func package(model: String, hardware: String, entry: CatalogueEntry, location: CatalogueLocation) async throws
    -> CachedPackage
  {
    let directory = layout.packageDirectory(model: model, hardware: hardware, entry: entry)
    let path = layout.packagePath(model: model, hardware: hardware, entry: entry)
    let url = location.packageURL(entry)
    try await CacheIO.run { try DurableFile.makeDirectory(directory) }
    var whenWaiting: (@Sendable () -> Void)?
    if let lockWait = self.lockWait { whenWaiting = { lockWait(directory) } }
    // A prune may remove the folder, lock file and all, while this waits: the lock is then taken on a new one.
    let lock = try await FileLock.acquire(
      directory + "/.lock", makeParent: { try DurableFile.makeDirectory(directory) }, whenWaiting: whenWaiting)
    defer { lock.unlock() }

    let verifier = self.verifier
    let existing = try await CacheIO.run { () -> (CachedPackage, [String])? in
      guard DurableFile.exists(path),
        var record = RecordCoding.decode(CachedPackage.self, path: directory + "/package.json"),
        let verified = try? verifier.verify(path: path, entry: entry), Hex.string(verified.sha256) == record.sha256
      else { return nil }
      record.path = path
      return (record, verified.warnings)
    }
    if let (record, warnings) = existing {
      for warning in warnings { warn?(warning) }
      return record
    }
    guard client != nil else {
      throw FirmwareCacheError(
        "--offline: \(model) \(entry.appVersion) for hardware \(hardware) is not in the cache \(layout.root) "
          + "(fetch it once online: beacon-provision firmware fetch \(model) --hver \(hardware) --release \(entry.appVersion))"
      )
    }
    let part = path + ".part"
    // What an earlier transfer that broke off left is resumed (the client's Range request). Should the server's
    // file have changed since, the result is the old file's start and the new one's rest: it fails verification,
    // and is fetched once more from the start [I: rather than sending If-Range, which needs the first response's
    // validator kept beside the `.part`; the catalogue's size and SHA-256 and the package's own checks catch the
    // splice, at the cost of a second download then].
    let resumed = try await CacheIO.run { (DurableFile.size(part) ?? 0) > 0 }
    var verified = try await downloadAndVerify(url, to: part, entry: entry)
    if case .failure = verified, resumed { verified = try await downloadAndVerify(url, to: part, entry: entry) }
    let checked = try verified.get()
    let (record, warnings) = try await CacheIO.run { () -> (CachedPackage, [String]) in
      DurableFile.remove(directory + "/package.json")
      try DurableFile.commit(part, to: path)
      let record = CachedPackage(
        model: model, hardware: hardware, appVersion: entry.appVersion, appFileName: entry.appFileName,
        url: RedactedURL(url).description,
        sha256: Hex.string(checked.sha256), size: checked.size, fetchedAt: Date(), path: path, downloaded: true)
      try DurableFile.write(try RecordCoding.encode(record), to: directory + "/package.json")
      return (record, checked.warnings)
    }
    for warning in warnings { warn?(warning) }
    return record
  }
}

extension FirmwareCache {
  /// Downloads `url` into `part`, resuming what it holds, and verifies it. A transfer that fails throws; a package
  /// that arrived but does not verify is deleted and its refusal returned, so the caller may fetch it afresh.
  fileprivate func downloadAndVerify(_ url: String, to part: String, entry: CatalogueEntry) async throws
    -> Result<PackageVerifier.Verified, any Error>
  {
    guard let client else { throw FirmwareCacheError("--offline: no download of \(RedactedURL(url))") }
    let cap = entry.size ?? Self.maximumPackageBytes
    let hash = DownloadHash()
    do {
      _ = try await client.download(
        HTTPRequest(url: url, maxBodyBytes: cap), to: part, observer: hash, progress: progress)
    } catch {
      // A failure before any byte arrived (404, a redirect loop, a refused size, a closed connection) leaves
      // nothing to resume: no empty `.part` stays behind.
      try? await CacheIO.run { DurableFile.removeIfEmpty(part) }
      throw error
    }
    let verifier = self.verifier
    return try await CacheIO.run { () -> Result<PackageVerifier.Verified, any Error> in
      let size = DurableFile.size(part)
      let verified = Result {
        try verifier.verify(path: part, entry: entry, hashed: size.flatMap { hash.digest(fileSize: $0) })
      }
      if case .failure = verified { DurableFile.remove(part) }
      return verified
    }
  }
}
