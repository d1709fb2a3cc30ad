import Firmware
import Foundation
import NordicDFU
import Profiles
import Testing

@testable import FirmwareIO

/// The package hash worked out while it downloads: the same digest as hashing the file afterwards when it
/// saw every byte in order (through a restart at zero too), none when it did not (a resumed `.part` whose
/// first bytes this run never saw, or a size that does not match), and the verifier uses it instead of
/// reading the file again.
@Suite(.timeLimit(.minutes(1))) struct DownloadHashTests {
  static let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

  static func sha256(_ bytes: [UInt8]) -> [UInt8] {
    let stream = SHA256Stream()
    stream.update(bytes)
    return stream.finish()
  }

  func feed(_ hash: DownloadHash, _ bytes: ArraySlice<UInt8>, at offset: Int) {
    Array(bytes).withUnsafeBytes { hash.wrote($0, at: Int64(offset)) }
  }

  @Test func piecesInOrderGiveTheFilesDigest() {
    let hash = DownloadHash()
    for start in stride(from: 0, to: Self.body.count, by: 16_384) {
      feed(hash, Self.body[start..<min(start + 16_384, Self.body.count)], at: start)
    }
    #expect(hash.digest(fileSize: Int64(Self.body.count))?.digest == Self.sha256(Self.body))
  }

  @Test func aRestartAtZeroStartsTheHashAgain() {
    let hash = DownloadHash()
    feed(hash, [9, 9, 9][...], at: 0)
    feed(hash, Self.body[0..<50_000], at: 0)
    feed(hash, Self.body[50_000...], at: 50_000)
    #expect(hash.digest(fileSize: Int64(Self.body.count))?.digest == Self.sha256(Self.body))
  }

  @Test func aResumedPartOrAWrongSizeGivesNoDigest() {
    let resumed = DownloadHash()
    feed(resumed, Self.body[50_000...], at: 50_000)
    #expect(resumed.digest(fileSize: Int64(Self.body.count)) == nil)
    let short = DownloadHash()
    feed(short, Self.body[0..<1_000], at: 0)
    #expect(short.digest(fileSize: 2_000) == nil)
  }

  /// The verifier takes the hash it is given rather than reading the file: a given digest that is not the
  /// catalogue's is refused though the file itself matches.
  @Test func theVerifierUsesTheHashWorkedOutWhileDownloading() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../firmware/example/KBPro_SIM_V514.zip"
    )
    .standardized.path
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let entry = CatalogueEntry(
      appVersion: "V5.14", version: FirmwareVersion("V5.14")!, appFileName: "KBPro_SIM_V514.zip", note: "",
      sha256: Self.sha256(bytes),
      size: bytes.count)
    let verifier = PackageVerifier()
    #expect(try verifier.verify(path: path, entry: entry).sha256 == Self.sha256(bytes))
    #expect(
      try verifier.verify(path: path, entry: entry, hashed: (Self.sha256(bytes), bytes.count)).sha256
        == Self.sha256(bytes))
    #expect(throws: FirmwareCacheError.self) {
      try verifier.verify(path: path, entry: entry, hashed: (Self.sha256([1]), bytes.count))
    }
  }
}
