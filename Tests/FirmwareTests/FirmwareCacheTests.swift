import Firmware
import FirmwareIO
import Foundation
import HTTP
import JSON
import NordicDFU
import Synchronization
import Testing

/// The verified cache (its layout in `FirmwareCacheLayout`): packages are verified — size, the
/// catalogue's SHA-256 (values from `sha256sum` of the example packages, made by nrfutil 6.1.7), every
/// `dfu inspect` check — before they are renamed into place, a refused download leaves nothing behind,
/// and a second fetch reuses a verified package. (Two processes contending for a package's lock:
/// CLITests `FirmwareLockProcessTests`.)
/// The network side is a fake of the small `HTTPClient` protocol; the live client is tested against real
/// servers in CLITests.
@Suite("Firmware cache", .timeLimit(.minutes(2))) struct FirmwareCacheTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
  static let example = repository + "/firmware/example/"
  static let base = "http://firmware.test/fw/"

  static func bytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

  static func temporaryRoot() -> String { NSTemporaryDirectory() + "fw-cache-\(UUID().uuidString)" }

  /// The example catalogue's V5.14 entry, and a client serving the example folder at `base`.
  static func setUp() throws -> (FakeHTTPClient, FirmwareCatalogue, CatalogueLocation) {
    let client = FakeHTTPClient()
    for name in ["KBPro_SIM.json", "KBPro_SIM_V513.zip", "KBPro_SIM_V514.zip"] {
      client.serve(base + name, bytes(example + name), etag: name == "KBPro_SIM.json" ? "\"v1\"" : nil)
    }
    let catalogue = try FirmwareCatalogue.decode(
      bytes(example + "KBPro_SIM.json"), model: "KBPro_SIM", source: "example")
    return (client, catalogue, try CatalogueLocation(base: base))
  }

  /// Every file under `root`, relative.
  static func files(_ root: String) -> [String] {
    (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter {
      var d: ObjCBool = false
      return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &d) && !d.boolValue
    }.sorted()
  }

  @Test func aVerifiedPackageIsStoredByModelHardwareAndVersion() async throws {
    let (client, catalogue, location) = try Self.setUp()
    let root = Self.temporaryRoot()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
    let entry = try #require(catalogue.latest(hardware: "V1.0"))
    let package = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
    #expect(package.path == root + "/packages/KBPro_SIM/V1.0/5.14/KBPro_SIM_V514.zip")
    #expect(package.sha256 == "5aeee5c44ffa910a3e6641526c992fcdb47a0b87a3663713a54690cf74e8f92e")
    #expect(package.size == 4619 && package.downloaded)
    #expect(
      Self.files(root) == [
        "packages/KBPro_SIM/V1.0/5.14/.lock", "packages/KBPro_SIM/V1.0/5.14/KBPro_SIM_V514.zip",
        "packages/KBPro_SIM/V1.0/5.14/package.json",
      ])
    // a second fetch is served from the cache (verified again), with no request
    let again = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
    #expect(!again.downloaded && again.sha256 == package.sha256)
    #expect(client.count(Self.base + "KBPro_SIM_V514.zip") == 1)
    // offline, the cached copy still serves; an uncached version does not
    let offline = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: nil)
    #expect(
      try await offline.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location).path
        == package.path)
    let older = catalogue.entries(hardware: "V1.0")[0]
    await #expect(throws: FirmwareCacheError.self) {
      try await offline.package(model: "KBPro_SIM", hardware: "V1.0", entry: older, location: location)
    }
    #expect(try await offline.list().map(\.appVersion) == ["V5.14"])
  }

  /// A refused download: the error names what failed, and the version folder holds no package, no record
  /// and no `.part`.
  static func expectRefused(
    _ entry: CatalogueEntry, serving body: [UInt8]? = nil, expectations: DeviceExpectations = DeviceExpectations(),
    verifier: PackageVerifier? = nil, _ message: String
  ) async throws {
    let (client, _, location) = try setUp()
    if let body { client.serve(base + entry.appFileName, body) }
    let root = temporaryRoot()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let cache = FirmwareCache(
      layout: FirmwareCacheLayout(root: root), client: client,
      verifier: verifier ?? PackageVerifier(expectations: expectations))
    do {
      _ = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
      Issue.record("accepted \(entry)")
    } catch {
      #expect("\(error)".contains(message), "\(error)")
    }
    #expect(files(root).filter { !$0.hasSuffix(".lock") } == [])
    #expect(try await cache.list().isEmpty)
  }

  @Test func aWrongSHA256IsRefusedAndNothingIsCached() async throws {
    var entry = try #require(try Self.setUp().1.latest(hardware: "V1.0"))
    entry.sha256 = Hex.bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    try await Self.expectRefused(
      entry, "has SHA-256 5aeee5c44ffa910a3e6641526c992fcdb47a0b87a3663713a54690cf74e8f92e, the catalogue says ba7816bf"
    )
  }

  /// A `.part` an earlier transfer left is resumed. When the server's file changed since, the resumed file is
  /// two files spliced: it fails verification and is fetched once more from the start, so the right package is
  /// cached. A package that fails again is refused after that second fetch; a fresh download is fetched once.
  @Test func aResumedPartThatDoesNotVerifyIsFetchedOnceMoreFromTheStart() async throws {
    let entry = try #require(try Self.setUp().1.latest(hardware: "V1.0"))
    let url = Self.base + "KBPro_SIM_V514.zip"
    for (left, requests) in [("KBPro_SIM_V514.zip", 1), ("KBPro_SIM_V513.zip", 2)] {
      let (client, _, location) = try Self.setUp()
      let root = Self.temporaryRoot()
      defer { try? FileManager.default.removeItem(atPath: root) }
      let folder = root + "/packages/KBPro_SIM/V1.0/5.14"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try Data(Self.bytes(Self.example + left).prefix(1000)).write(
        to: URL(fileURLWithPath: folder + "/KBPro_SIM_V514.zip.part"))
      let cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
      let package = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
      #expect(package.sha256 == "5aeee5c44ffa910a3e6641526c992fcdb47a0b87a3663713a54690cf74e8f92e", "\(left)")
      #expect(client.count(url) == requests, "\(left)")
      #expect(Self.files(root).filter { $0.hasSuffix(".part") }.isEmpty)
    }
    // The server's file itself is not the catalogue's: refused after the second fetch, not fetched again.
    for leftOver in [true, false] {
      let (client, _, location) = try Self.setUp()
      client.serve(url, Self.bytes(Self.example + "KBPro_SIM_V513.zip"))
      let root = Self.temporaryRoot()
      defer { try? FileManager.default.removeItem(atPath: root) }
      let folder = root + "/packages/KBPro_SIM/V1.0/5.14"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      if leftOver {
        try Data(Self.bytes(Self.example + "KBPro_SIM_V514.zip").prefix(1000)).write(
          to: URL(fileURLWithPath: folder + "/KBPro_SIM_V514.zip.part"))
      }
      let cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
      await #expect(throws: (any Error).self) {
        try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
      }
      #expect(client.count(url) == (leftOver ? 2 : 1))
      #expect(Self.files(root).filter { !$0.hasSuffix(".lock") }.isEmpty)
    }
  }

  @Test func aSizeMismatchIsRefused() async throws {
    var entry = try #require(try Self.setUp().1.latest(hardware: "V1.0"))
    entry.size = 4620
    try await Self.expectRefused(entry, "is 4619 bytes, the catalogue says 4620")
  }

  @Test func aPackageThatFailsDFUInspectIsRefused() async throws {
    let fixtures = Self.repository + "/Tests/Fixtures/dfu/"
    var entry = try #require(try Self.setUp().1.latest(hardware: "V1.0"))
    (entry.sha256, entry.size) = (nil, nil)
    // nrfutil's legacy package: not a Secure DFU package at all
    try await Self.expectRefused(entry, serving: Self.bytes(fixtures + "legacy_app.zip"), "is not a usable DFU package")
    // signed by a key other than the bootloader's (--public-key)
    let key = try DFUPublicKey(pem: String(contentsOfFile: fixtures + "sd_bl_app-public.pem", encoding: .utf8))
    try await Self.expectRefused(
      entry, serving: Self.bytes(fixtures + "app_signed.zip"),
      expectations: DeviceExpectations(publicKey: key), "fails dfu inspect")
    // a good package whose fw_version reads as another version, with --require-version-match
    try await Self.expectRefused(
      entry, serving: Self.bytes(fixtures + "app_unsigned.zip"),
      verifier: PackageVerifier(requireVersionMatch: true),
      "the catalogue says V5.14 but its application image's fw_version is 66051 (V660.51 if read as KKM's V<major>.<minor>); refused by --require-version-match"
    )
  }

  /// Vendors number fw_version as they like and nobody publishes KKM's mapping: a package whose fw_version
  /// does not read as the catalogue's version is cached with a warning (it was refused), each time it is used.
  @Test func aFirmwareVersionThatReadsOtherwiseIsAWarningNotARefusal() async throws {
    let fixtures = Self.repository + "/Tests/Fixtures/dfu/"
    let (client, catalogue, location) = try Self.setUp()
    var entry = try #require(catalogue.latest(hardware: "V1.0"))
    (entry.sha256, entry.size) = (nil, nil)
    client.serve(Self.base + entry.appFileName, Self.bytes(fixtures + "app_unsigned.zip"))
    let root = Self.temporaryRoot()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let warnings = Mutex<[String]>([])
    var cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
    cache.warn = { warning in warnings.withLock { $0.append(warning) } }
    let package = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
    #expect(package.downloaded)
    _ = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
    #expect(warnings.withLock { $0 }.count == 2)
    #expect(
      warnings.withLock { $0 }.first?.contains(
        "the catalogue says V5.14 but its application image's fw_version is 66051") == true)
  }

  /// A download that fails before its first byte (here: the package is missing from a file:// catalogue
  /// folder, read through libcurl as a real server would be) leaves no empty `.part` behind.
  @Test func aFailedDownloadLeavesNoEmptyPartFile() async throws {
    let folder = Self.temporaryRoot() + "-folder"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try Data(Self.bytes(Self.example + "KBPro_SIM.json")).write(to: URL(fileURLWithPath: folder + "/KBPro_SIM.json"))
    let root = Self.temporaryRoot()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let client = CurlHTTPClient(
      configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), maxTime: .seconds(20), retry: .none))
    let cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
    let location = try CatalogueLocation(base: "file://" + folder + "/")
    let catalogue = try await cache.catalogue(model: "KBPro_SIM", location: location).catalogue
    let entry = try #require(catalogue.latest(hardware: "V1.0"))
    await #expect(throws: HTTPClientError.self) {
      try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
    }
    #expect(Self.files(root).filter { $0.hasSuffix(".part") } == [], "\(Self.files(root))")
  }

  @Test func catalogueSnapshotsAreConditional() async throws {
    let (client, _, location) = try Self.setUp()
    let root = Self.temporaryRoot()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
    let first = try await cache.catalogue(model: "KBPro_SIM", location: location)
    #expect(first.origin == .downloaded && first.validators.etag == "\"v1\"")
    let second = try await cache.catalogue(model: "KBPro_SIM", location: location)
    #expect(second.origin == .notModified && second.catalogue == first.catalogue)
    #expect(client.requests.filter { $0.url.hasSuffix(".json") }.map(\.conditional?.etag) == [nil, "\"v1\""])
    let offline = try await FirmwareCache(layout: FirmwareCacheLayout(root: root), client: nil).catalogue(
      model: "KBPro_SIM", location: location)
    #expect(offline.origin == .cache && offline.catalogue == first.catalogue)
    // a broken catalogue is refused and does not replace the cached copy
    client.serve(Self.base + "KBPro_SIM.json", Array(#"{"V1.0": [{"appVersion": "V5.15"}]}"#.utf8), etag: "\"v2\"")
    await #expect(throws: JSONDiagnostic.self) { try await cache.catalogue(model: "KBPro_SIM", location: location) }
    let kept = try await FirmwareCache(layout: FirmwareCacheLayout(root: root), client: nil).catalogue(
      model: "KBPro_SIM", location: location)
    #expect(kept.catalogue == first.catalogue)
  }

  /// A base URL with credentials: the requests carry them (the server needs them), but no cache record, no
  /// snapshot and no description of the location holds the password, and a 304 still matches the stored copy.
  @Test func credentialsInTheBaseAreUsedButNeverStoredOrShown() async throws {
    let secretBase = "https://ops:s3cret-pw@firmware.test/fw/"
    let client = FakeHTTPClient()
    for name in ["KBPro_SIM.json", "KBPro_SIM_V514.zip"] {
      client.serve(secretBase + name, Self.bytes(Self.example + name), etag: name.hasSuffix(".json") ? "\"v1\"" : nil)
    }
    let location = try CatalogueLocation(base: secretBase)
    #expect(location.description == "https://firmware.test/fw/")
    let root = Self.temporaryRoot()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let cache = FirmwareCache(layout: FirmwareCacheLayout(root: root), client: client)
    let snapshot = try await cache.catalogue(model: "KBPro_SIM", location: location)
    #expect(snapshot.url == "https://firmware.test/fw/KBPro_SIM.json")
    #expect(try await cache.catalogue(model: "KBPro_SIM", location: location).origin == .notModified)
    let entry = try #require(snapshot.catalogue.latest(hardware: "V1.0"))
    let package = try await cache.package(model: "KBPro_SIM", hardware: "V1.0", entry: entry, location: location)
    #expect(package.url == "https://firmware.test/fw/KBPro_SIM_V514.zip")
    #expect(client.count(secretBase + "KBPro_SIM_V514.zip") == 1)
    for file in Self.files(root) where !file.hasSuffix(".zip") {
      #expect(
        !String(decoding: Self.bytes(root + "/" + file), as: UTF8.self).contains("s3cret-pw"),
        "\(file) holds the password")
    }
    #expect(
      try await FirmwareCache(layout: FirmwareCacheLayout(root: root), client: nil).list().allSatisfy {
        !$0.url.contains("s3cret")
      })
    do {
      _ = try CatalogueLocation(base: "ftp://ops:s3cret-pw@firmware.test/")
      Issue.record("an ftp base was accepted")
    } catch {
      #expect(!error.description.contains("s3cret-pw") && error.description.contains("ftp://firmware.test/"))
    }
  }
}
