import Firmware
import Foundation
import NordicDFU
import NordicDFUIO
import Profiles

/// Everything a downloaded package must pass before it enters the cache (or goes near a device): its size
/// and SHA-256 against the catalogue entry when it gives them, then every check of `dfu inspect` — the
/// package read through libzip (manifest, init packets, image hashes) and `PackageValidator`'s checks
/// with the caller's device facts (a `--public-key` makes every image's signature checked).
///
/// [I] One more check of ours: the application image's `fw_version`, read as KKM's version text through
/// `KKMFirmwareVersion` (530 ↔ "V5.30"), is compared with the version the catalogue entry names. Neither KKM
/// nor Nordic publishes that mapping and vendors number `fw_version` as they like, so a mismatch is a
/// warning (`Verified.warnings`), refused only with `requireVersionMatch` (`--require-version-match`). The
/// real check is the device's `ver` after the update, which every campaign compares with the entry.
///
/// Memory stays flat: the file is hashed in 1 MiB pieces (`SHA256Stream`) — or while it downloads
/// (`DownloadHash`) — and libzip reads it from disk.
public struct PackageVerifier: Sendable {
  public var expectations: DeviceExpectations
  /// Refuse a package whose `fw_version` reads as another version than the catalogue's (else: a warning).
  public var requireVersionMatch: Bool

  public init(expectations: DeviceExpectations = DeviceExpectations(), requireVersionMatch: Bool = false) {
    self.expectations = expectations
    self.requireVersionMatch = requireVersionMatch
  }

  /// What the verification found: the file's SHA-256 and size, and what is odd but not refused.
  public struct Verified: Sendable, Hashable {
    public var sha256: [UInt8]
    public var size: Int
    public var warnings: [String] = []
  }

  /// Verifies the file at `path` against `entry`; throws the first problem as one sentence. `hashed` is the
  /// file's SHA-256 and size when they were worked out as it was written (`DownloadHash`); else the file is
  /// hashed here.
  public func verify(path: String, entry: CatalogueEntry, hashed: (digest: [UInt8], count: Int)? = nil) throws
    -> Verified
  {
    let (digest, count) = try hashed ?? Self.hash(path)
    if let size = entry.size, size != count {
      throw FirmwareCacheError("\(entry.appFileName) is \(count) bytes, the catalogue says \(size)")
    }
    if let expected = entry.sha256, expected != digest {
      throw FirmwareCacheError(
        "\(entry.appFileName) has SHA-256 \(Hex.string(digest)), the catalogue says \(Hex.string(expected))")
    }
    let package: DFUPackage
    do {
      package = try DFUPackage(archive: LibzipArchive(path: path))
    } catch {
      throw FirmwareCacheError("\(entry.appFileName) is not a usable DFU package: \(error.description)")
    }
    let failed = PackageValidator(expectations: expectations).checks(package).filter { $0.outcome == .failed }
    if !failed.isEmpty {
      throw FirmwareCacheError(
        "\(entry.appFileName) fails dfu inspect: "
          + failed.map { "image #\($0.image) \($0.name): \($0.detail)" }.joined(separator: "; "))
    }
    var verified = Verified(sha256: digest, size: count)
    if let number = package.images.first(where: { $0.kind == .application })?.initPacket.initCommand.firmwareVersion {
      let text = KKMFirmwareVersion.text(fwVersion: number)
      if FirmwareVersion(text) != entry.version {
        let message =
          "\(entry.appFileName): the catalogue says \(entry.appVersion) but its application image's fw_version "
          + "is \(number) (\(text) if read as KKM's V<major>.<minor>)"
        if requireVersionMatch { throw FirmwareCacheError(message + "; refused by --require-version-match") }
        verified.warnings.append(message + "; the device's version after the update is what counts")
      }
    }
    return verified
  }

  /// The file's SHA-256 and size, read in 1 MiB pieces.
  static func hash(_ path: String) throws -> (digest: [UInt8], count: Int) {
    guard let file = FileHandle(forReadingAtPath: path) else {
      throw FirmwareCacheError("cannot read \(path): \(String(cString: strerror(errno)))")
    }
    defer { try? file.close() }
    let stream = SHA256Stream()
    var count = 0
    while true {
      let piece: Data
      do {
        guard let read = try file.read(upToCount: 1 << 20), !read.isEmpty else { break }
        piece = read
      } catch {
        throw FirmwareCacheError("cannot read \(path): \(error.localizedDescription)")
      }
      piece.withUnsafeBytes { stream.update($0) }
      count += piece.count
    }
    return (stream.finish(), count)
  }
}
