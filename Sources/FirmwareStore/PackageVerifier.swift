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
/// `KKMFirmwareVersion` (530 ↔ "V5.30"), must be the version the catalogue entry names. A campaign reads
/// the device's `ver` after the update and expects the entry's version; a package that installs another
/// one would fail every device after its transfer, so it is refused before any.
public struct PackageVerifier: Sendable {
  public var expectations: DeviceExpectations

  public init(expectations: DeviceExpectations = DeviceExpectations()) { self.expectations = expectations }

  /// What the verification found: the file's SHA-256 and size.
  public struct Verified: Sendable, Hashable {
    public var sha256: [UInt8]
    public var size: Int
  }

  /// Verifies the file at `path` against `entry`; throws the first problem as one sentence.
  public func verify(path: String, entry: CatalogueEntry) throws -> Verified {
    let bytes: [UInt8]
    do {
      bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      throw FirmwareStoreError("cannot read \(path): \(error.localizedDescription)")
    }
    if let size = entry.size, size != bytes.count {
      throw FirmwareStoreError("\(entry.appFileName) is \(bytes.count) bytes, the catalogue says \(size)")
    }
    let digest = SHA256Digest.hash(bytes)
    if let expected = entry.sha256, expected != digest {
      throw FirmwareStoreError(
        "\(entry.appFileName) has SHA-256 \(Hex.string(digest)), the catalogue says \(Hex.string(expected))")
    }
    let package: DFUPackage
    do {
      package = try DFUPackage(archive: LibzipArchive(path: path))
    } catch {
      throw FirmwareStoreError("\(entry.appFileName) is not a usable DFU package: \(error.description)")
    }
    let failed = PackageValidator(expectations: expectations).checks(package).filter { $0.outcome == .failed }
    if !failed.isEmpty {
      throw FirmwareStoreError("\(entry.appFileName) fails dfu inspect: "
        + failed.map { "image #\($0.image) \($0.name): \($0.detail)" }.joined(separator: "; "))
    }
    if let number = package.images.first(where: { $0.kind == .application })?.initPacket.initCommand.firmwareVersion {
      let text = KKMFirmwareVersion.text(fwVersion: number)
      if FirmwareVersion(text) != entry.version {
        throw FirmwareStoreError("\(entry.appFileName): the catalogue says \(entry.appVersion) but its application "
          + "image installs fw_version \(number) (\(text))")
      }
    }
    return Verified(sha256: digest, size: bytes.count)
  }
}
